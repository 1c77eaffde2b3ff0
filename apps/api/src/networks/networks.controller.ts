/** Docker's /networks: list (filters), create (overlay, ingress, IPAM), inspect (id, name or id prefix), remove (refused while in use). */
import { Body, Controller, Delete, Get, HttpCode, HttpException, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DOCKER_ERROR_SCHEMA } from '../audit/audit-responses';
import { fromNetworkCreate, goDecodeAs, NETWORK_CREATE, openApiSchema, parseFilters, PREDEFINED_NETWORKS, servicesUsing, toDockerNetwork } from '@shoal/docker-api';
import type { DockerNetwork, DockerNetworkCreate } from '@shoal/docker-api';
import { findNetwork, findNetworkInScope } from '../docker/lookup';
import { admitNetworkSpec, networkNameRefusal } from '@shoal/domain';
import { newObjectId } from '@shoal/runtime';
import { Intents } from '../intents/intents';
import { NETWORK_FILTERS, PRUNE_FILTERS, checkNetworkFilters, networkMatches, prunable, pruneUntil } from './network-filters';

@ApiTags('docker: networks')
@Controller('networks')
export class NetworksController {
  constructor(@Inject(Intents) private readonly intents: Intents) {}

  @Get()
  @ApiOperation({ summary: 'List networks' })
  @ApiQuery({ name: 'filters', required: false, description: 'JSON: id, name, driver, label, scope, type, dangling' })
  list(@Query('filters') raw?: string): DockerNetwork[] {
    this.intents.cluster();
    const filters = parseFilters(raw, NETWORK_FILTERS);
    checkNetworkFilters(filters);
    const state = this.intents.state;
    return [...state.networks.values()].filter((network) => networkMatches(state, filters, network)).map(toDockerNetwork);
  }

  @Post('create')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an overlay network', description: 'Written as NetworkCreated; answers once evolve has applied it.' })
  @ApiBody({ schema: openApiSchema(NETWORK_CREATE) })
  @ApiResponse({ status: 201, description: "The new network's id" })
  @ApiResponse({ status: 403, description: `The name of one of Docker's pre-defined networks (${PREDEFINED_NETWORKS.join(', ')})`, content: { 'application/json': { schema: DOCKER_ERROR_SCHEMA } } })
  async create(@Body() body: unknown): Promise<{ Id: string; Warning: string }> {
    this.intents.cluster();
    const state = this.intents.state;
    const given = goDecodeAs<DockerNetworkCreate>(NETWORK_CREATE, body);
    const name = given.Name ?? '';
    if (PREDEFINED_NETWORKS.includes(name)) throw new HttpException(`${name} is a pre-defined network and cannot be created`, 403);
    // Docker's words and status for an overlay network asked for in the local scope.
    if (given.Scope === 'local') throw new HttpException('cannot downgrade network scope for overlay networks', 403);
    this.intents.admit(networkNameRefusal(state, name));
    const spec = fromNetworkCreate(given, state);
    const id = newObjectId();
    this.intents.admit(admitNetworkSpec(state, id, spec, 'api'));
    await this.intents.submit('NetworkCreated', { id, spec });
    return { Id: id, Warning: '' };
  }

  @Post('prune')
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove every network no service uses (never the ingress network)' })
  @ApiQuery({ name: 'filters', required: false, description: 'JSON: label, label! (key or key=value), until (Unix seconds or RFC 3339)' })
  async prune(@Query('filters') raw?: string): Promise<{ NetworksDeleted: string[] }> {
    this.intents.cluster();
    const filters = parseFilters(raw, PRUNE_FILTERS);
    const until = pruneUntil(filters);
    const deleted: string[] = [];
    for (const network of [...this.intents.state.networks.values()]) {
      if (!prunable(this.intents.state, filters, network, until)) continue;
      await this.intents.submit('NetworkRemoved', { id: network.id });
      deleted.push(network.spec.name);
    }
    return { NetworksDeleted: deleted };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Inspect a network (by id, name or id prefix)' })
  @ApiQuery({ name: 'verbose', required: false })
  @ApiQuery({ name: 'scope', required: false, description: 'swarm (or none): by id, name or id prefix; any other scope: by id or id prefix only, as on a Docker manager' })
  inspect(@Param('id') ref: string, @Query('scope') scope?: string): DockerNetwork {
    this.intents.cluster();
    return toDockerNetwork(findNetworkInScope(this.intents.state, ref, scope));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a network', description: 'Refused (409) while a service attaches to it.' })
  async remove(@Param('id') ref: string): Promise<void> {
    this.intents.cluster();
    const network = findNetwork(this.intents.state, ref);
    const users = servicesUsing(this.intents.state, network);
    if (users.length > 0) throw new HttpException(`network ${network.spec.name} is in use by service ${users.join(', ')}`, 409);
    await this.intents.submit('NetworkRemoved', { id: network.id });
  }
}
