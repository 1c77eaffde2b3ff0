/**
 * `shoal run api` as its own process on the real broker, driven by the real docker CLI in
 * another: `docker swarm init` creates the cluster on an empty log, services are created,
 * scaled and removed over the socket and over TCP with the admin token, and a restarted
 * API replays the log to the same answers. With autolock on, a restarted API is locked
 * until `docker swarm unlock`, and keeps its secrets' data keys on the broker.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerCli } from '../../libs/testing/src/processes/docker-cli';
import type { DockerCliResult } from '../../libs/testing/src/processes/docker-cli';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import type { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';

describe('shoal run api on Kafka, driven by the docker CLI', () => {
  let deployment: ShoalProcesses;
  let dataDir: string;
  let api: ShoalProcess | undefined;
  let port = 0;

  const startApi = async (): Promise<void> => {
    api = deployment.cli(['run', 'api']);
    const [, listening] = await api.waitFor(/api: listening on http:\/\/127\.0\.0\.1:(\d+)/, 90_000);
    port = Number(listening);
  };

  const docker = (args: readonly string[], token?: string, input?: string): Promise<DockerCliResult> =>
    dockerCli(dataDir, args, { timeoutMs: 30_000, ...(token ? { tcp: { port, token } } : {}), ...(input !== undefined ? { input } : {}) });

  beforeAll(() => {
    deployment = ShoalProcesses.onKafka('api-e2e', { SHOAL_API_PORT: '0' });
    dataDir = deployment.dataDir;
  });
  afterAll(() => deployment?.close());

  it('docker swarm init, service create / scale / ls / rm, over the socket and TCP, and again after a restart', async () => {
    await startApi();
    expect(statSync(join(dataDir, 'shoal.sock')).mode & 0o777).toBe(0o600);
    const token = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();

    const notYet = await docker(['service', 'ls']);
    expect(notYet.stderr).toMatch(/not a swarm manager/);
    const init = await docker(['swarm', 'init']);
    if (init.code !== 0) throw new Error(init.stderr);
    expect(init).toMatchObject({ code: 0, stdout: expect.stringMatching(/Swarm initialized[\s\S]*docker swarm join --token SWMTKN-1-/) });
    expect((await docker(['swarm', 'init'])).stderr).toMatch(/already part of a swarm/);

    expect((await docker(['service', 'create', '--detach', '--name', 'web', '--replicas', '2', 'nginx:1.27'])).code).toBe(0);
    expect((await docker(['service', 'scale', '--detach', 'web=3'])).stdout).toMatch(/web scaled to 3/);
    expect((await docker(['service', 'ls', '--format', '{{.Name}} {{.Replicas}}'], token)).stdout).toBe('web 0/3\n');
    expect((await docker(['service', 'create', '--detach', '--name', 'db', 'postgres:17'], token)).code).toBe(0);

    expect(await api!.stop()).toBe(0);
    expect(existsSync(join(dataDir, 'shoal.sock'))).toBe(false);

    await startApi();
    expect((await docker(['service', 'ls', '--format', '{{.Name}} {{.Replicas}}'])).stdout.trim().split('\n').sort()).toEqual(['db 0/1', 'web 0/3']);
    expect((await docker(['service', 'inspect', '--format', '{{.Version.Index}}', 'web'])).stdout).toBe('2\n');
    expect((await docker(['service', 'rm', 'web', 'db'])).stdout).toBe('web\ndb\n');
    expect((await docker(['service', 'ls', '-q'])).stdout).toBe('');
  });

  it('docker swarm update --autolock: a restarted API serves nothing until docker swarm unlock with the key, and its secrets stay', async () => {
    const secretFile = join(dataDir, 'pw.txt');
    writeFileSync(secretFile, 'hunter2\n');
    expect((await docker(['secret', 'create', 'pw', secretFile])).code).toBe(0);
    const locked = await docker(['swarm', 'update', '--autolock=true']);
    expect(locked.stdout).toMatch(/Swarm updated\.\nTo unlock a swarm manager after it restarts, run the `docker swarm unlock`\ncommand and provide the following key:\n\n {4}SWMKEY-1-/);
    const key = (await docker(['swarm', 'unlock-key', '-q'])).stdout.trim();
    expect(key).toMatch(/^SWMKEY-1-[A-Za-z0-9+/]{43}$/);

    expect(await api!.stop()).toBe(0);
    await startApi();
    const refused = await docker(['node', 'ls']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Swarm is encrypted and needs to be unlocked before it can be used. Please use "docker swarm unlock" to unlock it.');
    const wrong = await docker(['swarm', 'unlock'], undefined, `SWMKEY-1-${Buffer.alloc(32, 3).toString('base64').replace(/=+$/, '')}\n`);
    expect(wrong.stderr).toMatch(/swarm could not be unlocked: invalid key provided/);
    const unlocked = await docker(['swarm', 'unlock'], undefined, `${key}\n`);
    expect(unlocked.code).toBe(0);
    expect((await docker(['secret', 'ls', '--format', '{{.Name}}'])).stdout).toBe('pw\n');
    expect((await docker(['swarm', 'unlock-key', '-q'])).stdout.trim()).toBe(key);
    // Removed: its data key goes from the broker's store, and a new secret is sealed under the unlocked key.
    expect((await docker(['secret', 'rm', 'pw'])).stdout).toBe('pw\n');
    expect((await docker(['secret', 'create', 'pw2', secretFile])).code).toBe(0);
    expect((await docker(['swarm', 'update', '--autolock=false'])).code).toBe(0);
    expect((await docker(['swarm', 'unlock-key'])).stderr).toMatch(/no unlock key is set/);
  });
});
