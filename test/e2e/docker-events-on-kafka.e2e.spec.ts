/**
 * `shoal run api` as its own process on the real broker, driven by the real docker CLI:
 * networks are created and removed, a service is created, the API is restarted, and
 * `docker events --since … --until …` still shows all of it — read from the log, so
 * durable across restarts — while the audit surface over the socket calls the log sound.
 */
import { join } from 'node:path';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { dockerCliOk } from '../../libs/testing/src/processes/docker-cli';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import type { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';

describe('docker events and docker network against shoal run api on Kafka', () => {
  let deployment: ShoalProcesses;
  let dataDir: string;
  let api: ShoalProcess | undefined;

  const startApi = async (): Promise<void> => {
    api = deployment.cli(['run', 'api']);
    await api.waitFor(/api: listening on http:\/\/127\.0\.0\.1:(\d+)/, 90_000);
  };

  const docker = (...args: string[]): Promise<string> => dockerCliOk(dataDir, args, { timeoutMs: 30_000 });

  beforeAll(() => {
    deployment = ShoalProcesses.onKafka('events-e2e', { SHOAL_API_PORT: '0' });
    dataDir = deployment.dataDir;
  });
  afterAll(() => deployment?.close());

  it('shows the history with docker events after a restart, and the audit agrees', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    await startApi();
    await docker('swarm', 'init');
    const backend = (await docker('network', 'create', '-d', 'overlay', '--subnet', '10.0.7.0/24', 'backend')).trim();
    await docker('network', 'create', '-d', 'overlay', 'frontend');
    await docker('service', 'create', '--detach', '--name', 'web', '--network', 'frontend', 'nginx:1.27');
    expect(await docker('network', 'rm', 'backend')).toBe('backend\n');
    await expect(docker('network', 'rm', 'frontend')).rejects.toThrow(/in use by service web/);

    expect(await api!.stop()).toBe(0);
    await startApi();

    expect((await docker('network', 'ls', '--format', '{{.Name}} {{.Driver}}')).trim()).toBe('frontend overlay');
    const until = Math.ceil(Date.now() / 1000);
    const events = await docker('events', '--since', String(since), '--until', String(until), '--filter', 'type=network', '--filter', 'type=service', '--format', '{{.Type}} {{.Action}} {{.Actor.Attributes.name}}');
    expect(events.trim().split('\n')).toEqual(['network create backend', 'network create frontend', 'service create web', 'network remove backend']);
    const byId = await docker('events', '--since', String(since), '--until', String(until), '--filter', `network=${backend}`, '--format', '{{.Action}}');
    expect(byId.trim().split('\n')).toEqual(['create', 'remove']);

    const socket = join(dataDir, 'shoal.sock');
    const verify = await dockerApi<{ agree: boolean; tally: { rejected: number; poison: number } }>(socket, 'GET', '/shoal/v1/audit/verify');
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({ agree: true, tally: { poison: 0 } });
    const page = await dockerApi<{ records: { type: string; verdict: { status: string } }[] }>(socket, 'GET', '/shoal/v1/audit/events?type=NetworkRemoved');
    expect(page.body.records.map((r) => r.verdict.status)).toEqual(['applied']);
    const ready = await dockerApi(socket, 'GET', '/readyz');
    expect(ready.status).toBe(200);
  });
});
