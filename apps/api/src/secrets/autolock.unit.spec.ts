/**
 * Autolock over HTTP, as `docker swarm update --autolock`, `docker swarm unlock-key
 * [--rotate]` and `docker swarm unlock` send it: the API in this process on an embedded
 * log, restarted on the same data directory to find itself locked.
 */
import { readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { LOG_LEVEL } from '@shoal/contracts';
import type { DockerSwarm } from '@shoal/docker-api';
import { createApiApp } from '../create-api-app';
import { startApi } from '../testing/api-harness';
import type { ApiHarness } from '../testing/api-harness';

const LOCKED = 'Swarm is encrypted and needs to be unlocked before it can be used. Please use "docker swarm unlock" to unlock it.';

/** A request over the API's unix socket in `dataDir`. */
const over = (dataDir: string) => (method: string, path: string, body?: unknown): Promise<{ status: number; body: { message?: string } & Record<string, unknown> }> =>
  new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { method, path, socketPath: join(dataDir, 'shoal.sock'), headers: text ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } : {} },
      (res) => {
        let data = '';
        res.on('data', (chunk: Buffer) => (data += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data.startsWith('{') ? (JSON.parse(data) as never) : ({ text: data } as never) }));
      },
    );
    req.on('error', reject);
    if (text) req.write(text);
    req.end();
  });

describe('autolock', () => {
  let api: ApiHarness;
  let app: INestApplication;
  let call: ReturnType<typeof over>;
  /** The running API stops, and one starts again on the same log and data directory (a restarted manager). */
  const restart = async (): Promise<void> => {
    await app.close();
    app = await createApiApp({ log: api.log, dataDir: api.dataDir, port: 0, cluster: api.cluster });
  };
  const update = async (query: string, change: (spec: DockerSwarm['Spec']) => DockerSwarm['Spec'] = (spec) => spec) => {
    const swarm = (await call('GET', '/swarm')).body as unknown as DockerSwarm;
    return call('POST', `/swarm/update?version=${swarm.Version.Index}${query}`, change(swarm.Spec));
  };
  const keyFile = (): string => readFileSync(join(api.dataDir, 'secrets.key'), 'utf8');

  beforeAll(async () => {
    api = await startApi({ logLevel: LOG_LEVEL });
    app = api.app;
    call = over(api.dataDir);
  });
  afterAll(async () => {
    await app.close();
    await api.log.close();
    rmSync(api.dataDir, { recursive: true, force: true });
  });

  it('has no unlock key while autolock is off, and an API that is not locked cannot be unlocked', async () => {
    expect(await call('GET', '/swarm/unlockkey')).toEqual({ status: 200, body: { UnlockKey: '' } });
    expect(await call('POST', '/swarm/unlock', { UnlockKey: 'SWMKEY-1-x' })).toEqual({ status: 409, body: { message: 'swarm is not locked' } });
  });

  let unlockKey = '';
  it('docker swarm update --autolock: the spec says so, the key file is locked, and the unlock key is shown', async () => {
    const secret = await call('POST', '/secrets/create', { Name: 'pw', Data: Buffer.from('hunter2').toString('base64') });
    expect(secret.status).toBe(201);
    expect((await update('', (spec) => ({ ...spec, EncryptionConfig: { AutoLockManagers: true } }))).status).toBe(200);
    expect(((await call('GET', '/swarm')).body as unknown as DockerSwarm).Spec.EncryptionConfig).toEqual({ AutoLockManagers: true });
    unlockKey = String((await call('GET', '/swarm/unlockkey')).body.UnlockKey);
    expect(unlockKey).toMatch(/^SWMKEY-1-[A-Za-z0-9+/]{43}$/);
    expect(keyFile()).toMatch(/^locked:/);
    // Still unlocked in this process: secrets work.
    expect((await call('POST', '/secrets/create', { Name: 'pw2', Data: Buffer.from('x').toString('base64') })).status).toBe(201);
  });

  it('a restarted API is locked: it serves nothing of the swarm, and /info says locked', async () => {
    await restart();
    expect(await call('GET', '/nodes')).toEqual({ status: 503, body: { message: LOCKED } });
    expect(await call('GET', '/swarm/unlockkey')).toEqual({ status: 503, body: { message: LOCKED } });
    expect(await call('POST', '/secrets/create', { Name: 'pw3', Data: 'eA==' })).toEqual({ status: 503, body: { message: LOCKED } });
    expect(((await call('GET', '/info')).body as { Swarm: unknown }).Swarm).toEqual({
      NodeID: '',
      NodeAddr: '127.0.0.1',
      LocalNodeState: 'locked',
      ControlAvailable: false,
      Error: LOCKED,
      RemoteManagers: null,
    });
    expect((await call('GET', '/_ping')).status).toBe(200);
  });

  it('a locked API answers init, join and leave as a locked Docker manager: already in a swarm; unlock first or force', async () => {
    const inSwarm = 'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.';
    expect(await call('POST', '/swarm/init', { ListenAddr: '127.0.0.1:2377' })).toEqual({ status: 503, body: { message: inSwarm } });
    expect(await call('POST', '/swarm/join', { RemoteAddrs: ['127.0.0.1:2377'], JoinToken: 'SWMTKN-1-x' })).toEqual({ status: 503, body: { message: inSwarm } });
    expect(await call('POST', '/swarm/leave')).toEqual({ status: 503, body: { message: 'Swarm is encrypted and locked. Please unlock it first or use `--force` to ignore this message.' } });
    expect((await call('POST', '/swarm/leave?force=true')).body.message).toMatch(/^Shoal's control plane is the swarm's manager/);
  });

  it('docker swarm unlock: a key not of the form is 400, another key (or a short one of the form) 401, in Docker words; the right one unlocks', async () => {
    expect(await call('POST', '/swarm/unlock', { UnlockKey: 'not a key' })).toEqual({ status: 400, body: { message: 'invalid key string' } });
    expect(await call('POST', '/swarm/unlock', {})).toEqual({ status: 400, body: { message: 'invalid key string' } });
    for (const key of [`SWMKEY-1-${Buffer.alloc(32, 1).toString('base64').replace(/=+$/, '')}`, 'SWMKEY-1-AAAA']) {
      expect(await call('POST', '/swarm/unlock', { UnlockKey: key })).toEqual({ status: 401, body: { message: 'swarm could not be unlocked: invalid key provided' } });
    }
    expect((await call('POST', '/swarm/unlock', { UnlockKey: unlockKey })).status).toBe(200);
    expect((await call('GET', '/nodes')).status).toBe(200);
    expect(((await call('GET', '/info')).body as { Swarm: { LocalNodeState: string } }).Swarm.LocalNodeState).toBe('active');
    expect(await call('GET', '/swarm/unlockkey')).toEqual({ status: 200, body: { UnlockKey: unlockKey } });
    expect((await call('POST', '/secrets/create', { Name: 'pw3', Data: 'eA==' })).status).toBe(201);
  });

  it('docker swarm unlock-key --rotate: a new key; after a restart only the new one unlocks', async () => {
    expect((await update('&rotateManagerUnlockKey=true')).status).toBe(200);
    const rotated = String((await call('GET', '/swarm/unlockkey')).body.UnlockKey);
    expect(rotated).not.toBe(unlockKey);
    await restart();
    expect((await call('POST', '/swarm/unlock', { UnlockKey: unlockKey })).body.message).toBe('swarm could not be unlocked: invalid key provided');
    expect((await call('POST', '/swarm/unlock', { UnlockKey: rotated })).status).toBe(200);
  });

  it('docker swarm update --autolock=false: the key file holds the key again, and a restarted API is not locked', async () => {
    expect((await update('', (spec) => ({ ...spec, EncryptionConfig: { AutoLockManagers: false } }))).status).toBe(200);
    expect(keyFile()).not.toMatch(/^locked:/);
    expect(await call('GET', '/swarm/unlockkey')).toEqual({ status: 200, body: { UnlockKey: '' } });
    await restart();
    expect((await call('GET', '/nodes')).status).toBe(200);
    expect((await call('GET', '/secrets/pw')).status).toBe(200);
  });
});
