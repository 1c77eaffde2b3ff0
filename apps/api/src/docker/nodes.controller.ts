/**
 * Docker's /nodes: list (filters), inspect, update (availability, role, labels) and remove.
 * The swarm's nodes are the control plane's (its leader, control-plane-node.ts) and those
 * registered on the log; every filter and lookup applies to both alike.
 */
import { ApiRootCa } from './api-root-ca';
import { Body, Controller, Delete, Get, HttpCode, HttpException, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { API_CONFIG } from '../api.tokens';
import type { ApiConfig } from '../api.config';
import { Intents } from '../intents/intents';
import type { Cluster, Node } from '@shoal/domain';
import { asLeader, controlPlaneNodeId, swarmNodes, controlPlaneRemovalRefusal, controlPlaneUpdateRefusal } from './control-plane-node';
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
    @Inject(ApiRootCa) private readonly roots: ApiRootCa,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List nodes, the control plane (the leader) first' })
  @ApiQuery({ name: 'filters', required: false, description: 'JSON: id, name, label, node.label, role, membership' })
  list(@Query('filters') raw?: string): DockerNode[] {
    const cluster = this.intents.cluster();
    const filters = parseFilters(raw, NODE_FILTERS);
    checkNodeFilters(filters);
    return [...this.swarmNodes(cluster).values()].filter((node) => nodeMatches(filters, node)).map((node) => this.toDocker(cluster, node));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Inspect a node (by id, id prefix or hostname)' })
  inspect(@Param('id') id: string): DockerNode {
    const cluster = this.intents.cluster();
    return this.toDocker(cluster, this.find(cluster, id));
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: "Update a node's spec; `version` must be its current Version.Index" })
  @ApiBody({ schema: openApiSchema(NODE_SPEC) })
  @ApiQuery({ name: 'version', required: true })
  async update(@Param('id') id: string, @Body() body: unknown, @Query('version') rawVersion?: string): Promise<void> {
    const cluster = this.intents.cluster();
    const version = queryVersion(rawVersion);
    const node = this.find(cluster, id);
    const spec = fromDockerNodeSpec(goDecodeAs<DockerNodeSpec>(NODE_SPEC, body ?? null), node.spec);
    if (this.isControlPlane(cluster, node)) {
      const refusal = controlPlaneUpdateRefusal(node, spec, version);
      if (refusal) throw new HttpException(refusal.message, refusal.status);
      return;
    }
    await this.intents.submit('NodeSpecUpdated', { id: node.id, spec }, { nodeVersions: { [node.id]: version } });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Remove a node (that is down, or with force=true); the control plane is not removed' })
  @ApiQuery({ name: 'force', required: false })
  async remove(@Param('id') id: string, @Query('force') force?: string): Promise<void> {
    const cluster = this.intents.cluster();
    const node = this.find(cluster, id);
    if (this.isControlPlane(cluster, node)) throw new HttpException(controlPlaneRemovalRefusal(node), 400);
    await this.intents.submit('NodeRemoved', { id: node.id, ...(queryFlag(force) ? { force: true } : {}) });
  }

  /** The control plane's node, then the registered ones, by id. */
  private swarmNodes(cluster: Cluster): Map<string, Node> {
    return swarmNodes(cluster, this.intents.state.nodes, this.config.joinAddr, SHOAL_VERSION);
  }

  /** A node by id, hostname or id prefix, as Docker finds one, among all the swarm's nodes. */
  private find(cluster: Cluster, ref: string): Node {
    return findNode({ ...this.intents.state, nodes: this.swarmNodes(cluster) }, ref);
  }

  private isControlPlane(cluster: Cluster, node: Node): boolean {
    return node.id === controlPlaneNodeId(cluster.id);
  }

  private toDocker(cluster: Cluster, node: Node): DockerNode {
    const tls = this.roots.tlsInfo(cluster);
    return this.isControlPlane(cluster, node) ? asLeader(toDockerNode(node, tls), this.config.joinAddr) : toDockerNode(node, tls);
  }
}
