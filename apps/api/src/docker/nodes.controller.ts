/** Docker's /nodes: list (filters), inspect, update (availability, role, labels) and remove. */
import { Body, Controller, Delete, Get, HttpException, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { API_CONFIG } from '../api.tokens';
import type { ApiConfig } from '../api.config';
import { Intents } from '../intents/intents';
import { controlPlaneNode, controlPlaneNodeId } from './control-plane-node';
import { checkNodeFilters, fromDockerNodeSpec, goDecodeAs, NODE_FILTERS, NODE_SPEC, nodeMatches, openApiSchema, parseFilters, queryFlag, queryVersion, toDockerNode } from '@shoal/docker-api';
import type { DockerNode, DockerNodeSpec } from '@shoal/docker-api';
import { findNode } from './lookup';
import { SHOAL_VERSION } from './system.controller';

@ApiTags('docker: nodes')
@Controller('nodes')
export class NodesController {
  constructor(
    @Inject(Intents) private readonly intents: Intents,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List nodes' })
  @ApiQuery({ name: 'filters', required: false, description: 'JSON: id, name, label, node.label, role, membership' })
  list(@Query('filters') raw?: string): DockerNode[] {
    this.intents.cluster();
    const filters = parseFilters(raw, NODE_FILTERS);
    checkNodeFilters(filters);
    return [...this.intents.state.nodes.values()].filter((node) => nodeMatches(filters, node)).map(toDockerNode);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Inspect a node (by id, id prefix or hostname)' })
  inspect(@Param('id') id: string): DockerNode {
    const cluster = this.intents.cluster();
    if (id === controlPlaneNodeId(cluster.id)) return controlPlaneNode(cluster, this.config.joinAddr, SHOAL_VERSION);
    return toDockerNode(findNode(this.intents.state, id));
  }

  @Post(':id/update')
  @ApiOperation({ summary: "Update a node's spec; `version` must be its current Version.Index" })
  @ApiBody({ schema: openApiSchema(NODE_SPEC) })
  @ApiQuery({ name: 'version', required: true })
  async update(@Param('id') id: string, @Body() body: unknown, @Query('version') rawVersion?: string): Promise<void> {
    const cluster = this.intents.cluster();
    if (id === controlPlaneNodeId(cluster.id)) throw new HttpException("the control plane's manager is not a node that can be updated", 400);
    const version = queryVersion(rawVersion);
    const node = findNode(this.intents.state, id);
    const spec = fromDockerNodeSpec(goDecodeAs<DockerNodeSpec>(NODE_SPEC, body ?? null), node.spec);
    await this.intents.submit('NodeSpecUpdated', { id: node.id, spec }, { nodeVersions: { [node.id]: version } });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Remove a node (that is down, or with force=true)' })
  @ApiQuery({ name: 'force', required: false })
  async remove(@Param('id') id: string, @Query('force') force?: string): Promise<void> {
    const cluster = this.intents.cluster();
    if (id === controlPlaneNodeId(cluster.id)) throw new HttpException("the control plane's manager cannot be removed", 400);
    const node = findNode(this.intents.state, id);
    await this.intents.submit('NodeRemoved', { id: node.id, ...(queryFlag(force) ? { force: true } : {}) });
  }
}
