/** Docker's /swarm: inspect, init (the cluster object, once) and update (spec, join tokens). */
import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Header, HttpCode, HttpException, Inject, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { DEFAULT_CLUSTER_SPEC, LOG_LEVEL } from '@shoal/contracts';
import { canonicalJson } from '@shoal/domain';
import type { ShoalEvent } from '@shoal/contracts';
import { newJoinTokens, joinToken } from '@shoal/runtime';
import { badRequest } from '../audit/docker-validation';
import { Intents } from '../intents/intents';
import { controlPlaneNodeId } from './control-plane-node';
import { fromDockerSwarmSpec, goDecodeAs, openApiSchema, queryFlag, queryVersion, SWARM_INIT, SWARM_SPEC, toDockerSwarm, unsupportedSwarmSettings } from '@shoal/docker-api';
import type { DockerSwarm, DockerSwarmSpec } from '@shoal/docker-api';

const ALREADY_A_SWARM = 'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.';

const sameSpec = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

@ApiTags('docker: swarm')
@Controller('swarm')
export class SwarmController {
  constructor(@Inject(Intents) private readonly intents: Intents) {}

  @Get()
  @ApiOperation({ summary: 'The swarm: its spec and join tokens' })
  inspect(): DockerSwarm {
    return toDockerSwarm(this.intents.cluster());
  }

  @Post('init')
  @HttpCode(200)
  @Header('Content-Type', 'application/json')
  @ApiOperation({ summary: 'Create the cluster object (once); answers the manager node id, a JSON string' })
  @ApiBody({ schema: openApiSchema(SWARM_INIT) })
  async init(@Body() body: unknown): Promise<string> {
    if (this.intents.state.cluster) throw new HttpException(ALREADY_A_SWARM, 503);
    const request = goDecodeAs<{ Spec?: DockerSwarmSpec }>(SWARM_INIT, body ?? null);
    const spec = fromDockerSwarmSpec(request.Spec ?? {}, DEFAULT_CLUSTER_SPEC);
    const cluster = this.intents.clusterId;
    await this.intents.submit('ClusterInitialized', { spec, tokens: newJoinTokens(cluster), logLevel: LOG_LEVEL });
    return JSON.stringify(controlPlaneNodeId(cluster));
  }

  @Get('unlockkey')
  @ApiOperation({ summary: 'The unlock key: Shoal has none (its state is the log, not encrypted raft files)' })
  unlockKey(): { UnlockKey: string } {
    this.intents.cluster();
    return { UnlockKey: '' };
  }

  @Post('leave')
  @ApiOperation({ summary: 'Not possible: the control plane is the swarm (answers 503)' })
  leave(): never {
    this.intents.cluster();
    throw new HttpException("Shoal's control plane is the swarm's manager and cannot leave it; stop Shoal instead", 503);
  }

  @Post('update')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update the spec (task history limit, heartbeat period) and rotate join tokens' })
  @ApiBody({ schema: openApiSchema(SWARM_SPEC) })
  @ApiQuery({ name: 'version', required: true })
  @ApiQuery({ name: 'rotateWorkerToken', required: false })
  @ApiQuery({ name: 'rotateManagerToken', required: false })
  async update(
    @Body() body: unknown,
    @Query('version') rawVersion?: string,
    @Query('rotateWorkerToken') rotateWorker?: string,
    @Query('rotateManagerToken') rotateManager?: string,
  ): Promise<void> {
    const cluster = this.intents.cluster();
    const version = queryVersion(rawVersion);
    const given = goDecodeAs<DockerSwarmSpec>(SWARM_SPEC, body ?? null);
    const unsupported = unsupportedSwarmSettings(given);
    if (unsupported) throw badRequest(unsupported);
    const spec = fromDockerSwarmSpec(given, cluster.spec);
    const events: ShoalEvent[] = [];
    const expect = { clusterVersion: version };
    const correlation = randomUUID();
    if (!sameSpec(spec, cluster.spec)) events.push(this.intents.propose('ClusterSpecUpdated', { spec }, expect, correlation));
    const rotate = { ...(queryFlag(rotateWorker) ? { worker: joinToken(cluster.id) } : {}), ...(queryFlag(rotateManager) ? { manager: joinToken(cluster.id) } : {}) };
    if (Object.keys(rotate).length > 0) events.push(this.intents.propose('JoinTokensRotated', rotate, events.length === 0 ? expect : undefined, correlation));
    if (events.length === 0 && version !== cluster.version) {
      throw new HttpException(`update out of sequence: cluster is at version ${cluster.version}, not ${version}`, 409);
    }
    await this.intents.submitAll(events);
  }
}
