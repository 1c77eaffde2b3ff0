/**
 * Docker's /swarm: inspect, init (the cluster object, once), update (spec, join tokens,
 * autolock and its unlock key), and unlock (a restarted API whose cluster key is locked).
 */
import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Header, HttpCode, HttpException, Inject, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { DEFAULT_CLUSTER_SPEC, EVENT_TYPES, LOG_LEVEL, RULE_LEVELS, levelOfVersion } from '@shoal/contracts';
import { canonicalJson } from '@shoal/domain';
import type { Cluster } from '@shoal/domain';
import type { JoinTokensRotated, RootCaRotationStarted, ShoalEvent } from '@shoal/contracts';
import { caDigest, issuerOf, newJoinTokens, newRoot, joinToken, operatorRoot, operatorRotation, rootKeyPem } from '@shoal/runtime';
import type { NewRoot } from '@shoal/runtime';
import type { ApiConfig } from '../api.config';
import { API_CONFIG } from '../api.tokens';
import { DOCKER_ERROR_SCHEMA } from '../audit/audit-responses';
import { badRequest } from '../audit/docker-validation';
import { Intents } from '../intents/intents';
import { controlPlaneNodeId } from './control-plane-node';
import { ApiRootCa } from './api-root-ca';
import { autoLocked, forceRotateOf, fromDockerSwarmSpec, goDecodeAs, openApiSchema, queryFlag, queryVersion, SWARM_INIT, SWARM_SPEC, SWARM_UNLOCK, toDockerSwarm, unsupportedSwarmSettings } from '@shoal/docker-api';
import { ApiSecretVault } from '../secrets/api-secret-vault';
import { hasUnlockKeyForm } from '../secrets/unlock-key-form';
import { InvalidUnlockKeyError, NotLockedError, SWARM_LOCKED_MESSAGE } from '@shoal/runtime';
import type { DockerSwarm, DockerSwarmSpec } from '@shoal/docker-api';

const ALREADY_A_SWARM = 'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.';
/** Docker's words to its last manager asked to leave (the trailing space is the engine's). */
const LAST_MANAGER =
  'You are attempting to leave the swarm on a node that is participating as a manager. Removing the last manager erases all current state of the swarm. Use `--force` to ignore this message. ';
/** Docker's words to a locked manager asked to leave without force. */
const LOCKED_LEAVE = 'Swarm is encrypted and locked. Please unlock it first or use `--force` to ignore this message.';
/** SwarmKit's words for an unlock key not of its form (400), and for one of its form that does not unlock (401). */
const MALFORMED_UNLOCK_KEY = 'invalid key string';
const WRONG_UNLOCK_KEY = 'swarm could not be unlocked: invalid key provided';

const sameSpec = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/**
 * What an update asks of the root CA, as SwarmKit reads its CAConfig: a root of the
 * operator's own when SigningCACert or SigningCAKey is given (whatever ForceRotate says, and
 * checked before anything else), else a new root of Shoal's when ForceRotate changed.
 */
type RootAsked = { readonly kind: 'own'; readonly cert: string; readonly key: string; readonly forceRotate: number } | { readonly kind: 'new'; readonly forceRotate: number };
const rootAsked = (given: DockerSwarmSpec, cluster: Cluster): RootAsked | undefined => {
  const ca = given.CAConfig;
  const forceRotate = ca?.ForceRotate ?? forceRotateOf(cluster);
  if (ca?.SigningCACert || ca?.SigningCAKey) return { kind: 'own', cert: ca.SigningCACert ?? '', key: ca.SigningCAKey ?? '', forceRotate };
  return forceRotate !== forceRotateOf(cluster) ? { kind: 'new', forceRotate } : undefined;
};

/** The refusal of a root CA rotation on a cluster that has no root CA, naming the field that asked for one. */
const noRootCa = (field: string): HttpException => badRequest(`${field}: the cluster has no root CA to rotate: start the API and the dispatchers with SHOAL_CA_DIR`);

@ApiTags('docker: swarm')
@Controller('swarm')
export class SwarmController {
  constructor(
    @Inject(Intents) private readonly intents: Intents,
    @Inject(ApiSecretVault) private readonly secrets: ApiSecretVault,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(ApiRootCa) private readonly roots: ApiRootCa,
  ) {}

  @Get()
  @ApiOperation({ summary: 'The swarm: its spec and join tokens' })
  inspect(): DockerSwarm {
    const cluster = this.intents.cluster();
    return toDockerSwarm(cluster, this.secrets.keyring.openJoinTokens(cluster.tokens), this.roots.tlsInfo(cluster));
  }

  @Post('init')
  @HttpCode(200)
  @Header('Content-Type', 'application/json')
  @ApiOperation({ summary: 'Create the cluster object (once); answers the manager node id, a JSON string' })
  @ApiBody({ schema: openApiSchema(SWARM_INIT) })
  async init(@Body() body: unknown): Promise<string> {
    if (this.intents.state.cluster) throw new HttpException(ALREADY_A_SWARM, 503);
    if (this.secrets.isLocked) throw new HttpException(SWARM_LOCKED_MESSAGE, 503);
    const request = goDecodeAs<{ Spec?: DockerSwarmSpec }>(SWARM_INIT, body ?? null);
    const given = request.Spec ?? {};
    const unsupported = unsupportedSwarmSettings(given);
    if (unsupported) throw badRequest(unsupported);
    // Autolock is the spec's EncryptionConfig, as on Docker, which applies the spec to the new swarm after the
    // request's own AutoLockManagers: that flag alone turns nothing on (`docker swarm init --autolock` sends both).
    const spec = fromDockerSwarmSpec(given, DEFAULT_CLUSTER_SPEC);
    // A root of the operator's own (CAConfig.SigningCACert and SigningCAKey): Docker initialises the
    // swarm, then applies the spec as an update, which rotates to it. Checked before anything is written.
    const own = given.CAConfig ? this.initialRoot(given.CAConfig) : undefined;
    const cluster = this.intents.clusterId;
    if (autoLocked(spec)) await this.secrets.keyring.setAutolock(true);
    const tokens = this.secrets.keyring.keepJoinTokens(newJoinTokens(cluster, this.config.ca?.certificate));
    await this.intents.submit('ClusterInitialized', { spec, tokens, logLevel: LOG_LEVEL });
    if (own) {
      const rotation = this.rootRotation(this.intents.cluster(), own, { clusterVersion: this.intents.cluster().version }, randomUUID());
      if (rotation) await this.intents.submitAll([rotation]);
    }
    return JSON.stringify(controlPlaneNodeId(cluster));
  }

  /**
   * The operator's root asked for at init, checked as a rotation to it would be (400 naming
   * the field); the API must have a root CA to rotate from. Undefined for a certificate with
   * no PEM in it and no key, which SwarmKit reads as none given.
   */
  private initialRoot(ca: NonNullable<DockerSwarmSpec['CAConfig']>): RootAsked | undefined {
    const cert = ca.SigningCACert ?? '';
    const key = ca.SigningCAKey ?? '';
    const given = operatorRoot(cert, key, new Date());
    if (given === undefined) return undefined;
    if (!this.config.ca) throw noRootCa('CAConfig.SigningCACert');
    if ('reason' in given) throw badRequest(`${given.field}: ${given.reason}`);
    return { kind: 'own', cert, key, forceRotate: ca.ForceRotate ?? 0 };
  }

  @Get('unlockkey')
  @ApiOperation({ summary: "Autolock's unlock key ('' when autolock is off)" })
  async unlockKey(): Promise<{ UnlockKey: string }> {
    this.intents.cluster();
    return { UnlockKey: await this.secrets.keyring.unlockKey() };
  }

  @Post('unlock')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Unlock an API whose cluster key is locked (autolock), with the unlock key',
    description: "409 when it is not locked; then, as SwarmKit: 400 for a key not of an unlock key's form, 401 for one that does not unlock.",
  })
  @ApiBody({ schema: openApiSchema(SWARM_UNLOCK) })
  @ApiResponse({ status: 401, description: 'A key of the form that does not unlock the swarm', content: { 'application/json': { schema: DOCKER_ERROR_SCHEMA } } })
  async unlock(@Body() body: unknown): Promise<void> {
    const { UnlockKey } = goDecodeAs<{ UnlockKey?: string }>(SWARM_UNLOCK, body ?? null);
    const key = UnlockKey ?? '';
    // SwarmKit's order: not locked (409), then the key's form (400), then whether it unlocks (401).
    if (this.secrets.isLocked && !hasUnlockKeyForm(key)) throw badRequest(MALFORMED_UNLOCK_KEY);
    try {
      await this.secrets.keyring.unlock(key);
    } catch (error) {
      if (error instanceof NotLockedError) throw new HttpException(error.message, 409);
      if (error instanceof InvalidUnlockKeyError) throw new HttpException(WRONG_UNLOCK_KEY, 401);
      throw error;
    }
  }

  @Post('leave')
  @ApiOperation({
    summary: "Refused (503): the control plane is the swarm's last manager",
    description: "Without force, Docker's own refusal to the last manager. With force, Docker would erase the swarm's state; Shoal's is the log, kept for the audit, so it refuses that too.",
  })
  @ApiQuery({ name: 'force', required: false })
  leave(@Query('force') force?: string): never {
    if (this.secrets.isLocked && !queryFlag(force)) throw new HttpException(LOCKED_LEAVE, 503);
    this.intents.cluster();
    if (!queryFlag(force)) throw new HttpException(LAST_MANAGER, 503);
    throw new HttpException("Shoal's control plane is the swarm's manager, and its state is the log, kept for the audit: leaving cannot erase it; stop Shoal instead", 503);
  }

  @Post('join')
  @ApiOperation({ summary: "Refused (503): the control plane is its own swarm's manager; nodes join with `shoal agent --join-token`" })
  join(): never {
    if (this.intents.state.cluster) throw new HttpException(ALREADY_A_SWARM, 503);
    throw new HttpException("Shoal's control plane manages a swarm of its own and joins none: use docker swarm init, and join nodes to it with shoal agent --join-token", 503);
  }

  @Post('update')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update the spec (task history limit, heartbeat period) and rotate join tokens' })
  @ApiBody({ schema: openApiSchema(SWARM_SPEC) })
  @ApiQuery({ name: 'version', required: true })
  @ApiQuery({ name: 'rotateWorkerToken', required: false })
  @ApiQuery({ name: 'rotateManagerToken', required: false })
  @ApiQuery({ name: 'rotateManagerUnlockKey', required: false })
  async update(
    @Body() body: unknown,
    @Query('version') rawVersion?: string,
    @Query('rotateWorkerToken') rotateWorker?: string,
    @Query('rotateManagerToken') rotateManager?: string,
    @Query('rotateManagerUnlockKey') rotateUnlockKey?: string,
  ): Promise<void> {
    const cluster = this.intents.cluster();
    const version = queryVersion(rawVersion);
    const given = goDecodeAs<DockerSwarmSpec>(SWARM_SPEC, body ?? null);
    const unsupported = unsupportedSwarmSettings(given);
    if (unsupported) throw badRequest(unsupported);
    const spec = fromDockerSwarmSpec(given, cluster.spec);
    const logLevel = cluster.logLevel ?? 1;
    if (spec.ca && !sameSpec(spec.ca, cluster.spec.ca) && logLevel < RULE_LEVELS.caSettingsInTheSpec) {
      throw badRequest(`CAConfig.NodeCertExpiry: the CA's settings need log level ${RULE_LEVELS.caSettingsInTheSpec} and the log is at level ${logLevel}: raise it (POST /shoal/v1/log-level) once every component runs a build that reads it`);
    }
    const events: ShoalEvent[] = [];
    const expect = { clusterVersion: version };
    const correlation = randomUUID();
    if (!sameSpec(spec, cluster.spec)) events.push(this.intents.propose('ClusterSpecUpdated', { spec }, expect, correlation));
    const root = this.roots.at(cluster)?.root;
    const rotate = { ...(queryFlag(rotateWorker) ? { worker: joinToken(cluster.id, root) } : {}), ...(queryFlag(rotateManager) ? { manager: joinToken(cluster.id, root) } : {}) };
    if (Object.keys(rotate).length > 0) events.push(this.rotation(rotate, logLevel, events.length === 0 ? expect : undefined, correlation));
    const asked = rootAsked(given, cluster);
    if (asked) {
      const rotation = this.rootRotation(cluster, asked, events.length === 0 ? expect : undefined, correlation);
      if (rotation) events.push(rotation);
    }
    const outOfSequence = (): HttpException => new HttpException(`update out of sequence: cluster is at version ${cluster.version}, not ${version}`, 409);
    if (events.length === 0 && version !== cluster.version) throw outOfSequence();
    // Autolock turned on or off, or its key rotated: the key file changes first (refused before anything changes when the version is stale).
    const locking = autoLocked(spec) !== autoLocked(cluster.spec) || (autoLocked(spec) && queryFlag(rotateUnlockKey));
    if (locking) {
      if (version !== cluster.version) throw outOfSequence();
      await this.secrets.keyring.setAutolock(autoLocked(spec));
    }
    try {
      await this.intents.submitAll(events);
    } catch (error) {
      // The log kept the spec as it was: so does the key file (a fresh unlock key if it was locked).
      if (locking && autoLocked(spec) !== autoLocked(cluster.spec)) await this.secrets.keyring.setAutolock(autoLocked(cluster.spec)).catch(() => undefined);
      throw error;
    }
  }

  /**
   * `docker swarm ca --rotate`: a new root, cross-signed by the root in use, its key sealed
   * under the cluster key, and the join tokens that will carry its digest once the rotation
   * ends (root-rotation.ts). The root is Shoal's own (a new CAConfig.ForceRotate) or the
   * operator's (CAConfig.SigningCACert and SigningCAKey, `--ca-cert`/`--ca-key`), checked as
   * SwarmKit's validateCAConfig checks it; the operator's root when it is the root in use, or
   * the one a rotation under way is moving to, asks for nothing (as in SwarmKit). Refused
   * without a root CA, and on a log below the level that reads it.
   */
  private rootRotation(cluster: Cluster, asked: RootAsked, expect: { readonly clusterVersion: number } | undefined, correlation: string): ShoalEvent | undefined {
    const field = asked.kind === 'own' ? 'CAConfig.SigningCACert' : 'CAConfig.ForceRotate';
    const current = this.roots.at(cluster);
    if (!current) throw noRootCa(field);
    const logLevel = cluster.logLevel ?? 1;
    if (logLevel < levelOfVersion('RootCaRotationStarted', EVENT_TYPES.RootCaRotationStarted.v)) {
      throw badRequest(
        `${field}: rotating the root CA needs log level ${RULE_LEVELS.nodeTlsInfo} and the log is at level ${logLevel}: raise it (POST /shoal/v1/log-level) once every component runs a build that reads it`,
      );
    }
    const given = asked.kind === 'own' ? operatorRoot(asked.cert, asked.key, new Date()) : undefined;
    let next: NewRoot;
    if (given !== undefined) {
      if ('reason' in given) throw badRequest(`${given.field}: ${given.reason}`);
      if (given.root.raw.equals(current.root.raw)) {
        if (!current.rotating) return undefined;
        // SwarmKit aborts the rotation under way here; Shoal's log has no record that undoes one.
        throw badRequest(
          'CAConfig.SigningCACert: the desired CA certificate is the root in use while a rotation to another root is under way: Shoal cannot abort a rotation; let it end, then rotate back to this root',
        );
      }
      if (current.rotating && current.trusted[1]?.raw.equals(given.root.raw)) return undefined;
      next = operatorRotation(current.rootSigner(), given);
    } else if (asked.forceRotate !== forceRotateOf(cluster)) {
      // No certificate in SigningCACert (nor a key): SwarmKit reads it as none given.
      next = newRoot(current.rootSigner(), asked.forceRotate, new Date());
    } else {
      return undefined;
    }
    const keyring = this.secrets.keyring;
    const data: RootCaRotationStarted = {
      forceRotate: asked.forceRotate,
      root: next.root.toString(),
      crossSigned: next.crossSigned.toString(),
      key: keyring.keepRootCaKey(rootKeyPem(next), caDigest(next.root)),
      issuer: issuerOf(next.root),
      tokens: keyring.keepJoinTokens(newJoinTokens(cluster.id, next.root)),
    };
    return this.intents.propose('RootCaRotationStarted', data, expect, correlation);
  }

  /**
   * The record of new join tokens: kept sealed, with their hashes (v2), once the log is at
   * the level that reads it; on a log below it, in the clear as the builds before it wrote
   * them (v1), so that a leaked token can still be rotated during a rolling upgrade.
   */
  private rotation(tokens: { readonly worker?: string; readonly manager?: string }, logLevel: number, expect: { readonly clusterVersion: number } | undefined, correlation: string): ShoalEvent {
    const keyring = this.secrets.keyring;
    const kept: JoinTokensRotated = {
      ...(tokens.worker ? { worker: keyring.keepJoinToken(tokens.worker) } : {}),
      ...(tokens.manager ? { manager: keyring.keepJoinToken(tokens.manager) } : {}),
    };
    const event = this.intents.propose('JoinTokensRotated', kept, expect, correlation);
    if (logLevel >= levelOfVersion('JoinTokensRotated', EVENT_TYPES.JoinTokensRotated.v)) return event;
    return { ...event, v: 1, data: tokens } as unknown as ShoalEvent;
  }
}
