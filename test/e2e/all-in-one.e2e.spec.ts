import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import { runShoalCli } from '../../libs/testing/src/processes/spawn-shoal';
import type { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { eventually } from '../../libs/testing/src/eventually';

interface DockerTask {
  readonly ID: string;
  readonly Slot?: number;
  readonly NodeID?: string;
  readonly DesiredState: string;
  readonly Status: { readonly State: string };
}

// `npm start` as a user runs it: the all-in-one process on the embedded log with three
// simulated nodes, driven through Docker's API on its socket, stopped and started again,
// then audited by the CLI in yet another process.
describe('npm start (all in one, embedded log)', () => {
  let deployment: ShoalProcesses;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const start = (): ShoalProcess => deployment.start();
  beforeEach(() => {
    deployment = ShoalProcesses.embedded('e2e', { SHOAL_API_PORT: '0', SHOAL_DISPATCHER_PORT: '0' });
    ({ dataDir, env } = deployment);
  });
  afterEach(() => deployment?.close());

  const running = (socket: string, service: string) => async (): Promise<DockerTask[] | undefined> => {
    const { body } = await dockerApi<DockerTask[]>(socket, 'GET', `/v1.47/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [service] }))}`);
    const up = body.filter((task) => task.DesiredState === 'running' && task.Status.State === 'running');
    return up.length === 3 ? up : undefined;
  };

  it('runs a service on its simulated nodes, survives a restart from its snapshot, and audits clean', async () => {
    const first = start();
    const [, cluster] = await first.waitFor(/cluster\s+(\S+)/, 90_000);
    await first.waitFor(/Ctrl-C stops it/, 90_000);
    expect(first.output).toMatch(/nodes\s+3 simulated/);
    expect(first.output).toMatch(/running\s+allocator, orchestrator, scheduler, reaper, dispatcher, api/);
    const socket = join(dataDir, 'shoal.sock');

    const nodes = await dockerApi<{ ID: string; Status: { State: string } }[]>(socket, 'GET', '/nodes');
    // The control plane, the swarm's leader, and the three simulated nodes.
    expect(nodes.body.map((node) => node.Status.State)).toEqual(['ready', 'ready', 'ready', 'ready']);
    // /metrics has the view's families and those of the dispatcher sharing the process.
    const metrics = await dockerApi<string>(socket, 'GET', '/metrics');
    expect(metrics.body).toMatch(/^shoal_nodes\{state="ready",availability="active",role="worker"\} 3$/m);
    expect(metrics.body).toMatch(/^shoal_dispatcher_active 1$/m);
    expect(metrics.body).toMatch(/^shoal_dispatcher_sessions\{registration="open"\} 3$/m);
    // One registry for the whole process: each part's view by name, each family once, the process's defaults.
    for (const view of ['api', 'allocator', 'orchestrator', 'scheduler', 'reaper', 'dispatcher']) expect(metrics.body).toMatch(new RegExp(`^shoal_view_position\\{view="${view}"\\} \\d+$`, 'm'));
    expect(metrics.body.match(/^# TYPE shoal_records_total counter$/gm)).toHaveLength(1);
    expect(metrics.body).toMatch(/^process_cpu_seconds_total \d/m);
    expect((await dockerApi(socket, 'GET', '/readyz')).status).toBe(200);
    const created = await dockerApi<{ ID: string }>(socket, 'POST', '/v1.47/services/create', {
      Name: 'web',
      TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' } },
      Mode: { Replicated: { Replicas: 3 } },
    });
    expect(created.status).toBe(201);
    const tasks = await eventually('three tasks of web run', running(socket, 'web'));
    expect(tasks.map((task) => task.Slot).sort()).toEqual([1, 2, 3]);
    expect(new Set(tasks.map((task) => task.NodeID)).size).toBe(3);
    expect(await first.stop()).toBe(0);
    expect(readdirSync(join(dataDir, 'snapshots', 'shoal')).length).toBeGreaterThan(0);
    expect(existsSync(join(dataDir, 'log', 'LOCK'))).toBe(false);

    const second = start();
    const [, again] = await second.waitFor(/cluster\s+(\S+)/, 90_000);
    await second.waitFor(/Ctrl-C stops it/, 90_000);
    expect(again).toBe(cluster);
    // The same nodes come back (their ids kept) and the service runs again.
    await eventually('web runs again after the restart', running(socket, 'web'));
    const nodesAgain = await dockerApi<{ ID: string }[]>(socket, 'GET', '/nodes');
    expect(nodesAgain.body.map((node) => node.ID).sort()).toEqual(nodes.body.map((node) => node.ID).sort());
    expect(await second.stop()).toBe(0);

    const verify = await runShoalCli(['audit', 'verify'], env);
    expect(verify.stderr).toBe('');
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/ok\s+shoal: snapshot at offset \d+ \+ tail/);
    expect(verify.stdout).toMatch(/verdict\s+AGREE/);

    const replay = await runShoalCli(['audit', 'replay', '--json'], env);
    const state = JSON.parse(replay.stdout) as { state: { cluster: { id: string }; terms: [string, number][] } };
    expect(state.state.cluster.id).toBe(cluster);
    // The second process's components took over from the first under newer terms.
    expect(Object.fromEntries(state.state.terms)).toMatchObject({ allocator: 2, orchestrator: 2, scheduler: 2, reaper: 2, dispatcher: 2 });
  });

  it('with autolock, a restarted npm start is locked, and its own nodes join once docker swarm unlock opens their join token', async () => {
    const first = start();
    await first.waitFor(/Ctrl-C stops it/, 90_000);
    const socket = join(dataDir, 'shoal.sock');
    const swarm = await dockerApi<{ Version: { Index: number }; Spec: object; JoinTokens: { Worker: string } }>(socket, 'GET', '/v1.41/swarm');
    const locking = await dockerApi(socket, 'POST', `/v1.41/swarm/update?version=${swarm.body.Version.Index}`, { ...swarm.body.Spec, EncryptionConfig: { AutoLockManagers: true } });
    expect(locking.status).toBe(200);
    const { body: key } = await dockerApi<{ UnlockKey: string }>(socket, 'GET', '/v1.41/swarm/unlockkey');
    expect(key.UnlockKey).toMatch(/^SWMKEY-1-/);
    expect(await first.stop()).toBe(0);

    const second = start();
    await second.waitFor(/the swarm is locked: this host's own nodes join once it is unlocked/, 90_000);
    await second.waitFor(/Ctrl-C stops it/, 90_000);
    expect((await dockerApi(socket, 'GET', '/v1.41/nodes')).status).toBe(503);
    const openSessions = async (): Promise<string | undefined> =>
      /^shoal_dispatcher_sessions\{registration="open"\} (\d+)$/m.exec((await dockerApi<string>(socket, 'GET', '/metrics')).body)?.[1];
    expect(await openSessions()).not.toBe('3');
    expect((await dockerApi(socket, 'POST', '/v1.41/swarm/unlock', { UnlockKey: key.UnlockKey })).status).toBe(200);
    // The worker token opened with the key the unlock gave: the three nodes open their sessions again, and the token is the one before the restart.
    await eventually('the simulated nodes back', async () => ((await openSessions()) === '3' ? true : undefined));
    expect((await dockerApi<{ JoinTokens: { Worker: string } }>(socket, 'GET', '/v1.41/swarm')).body.JoinTokens.Worker).toBe(swarm.body.JoinTokens.Worker);
    expect(await second.stop()).toBe(0);
  });

  it('refuses a second all-in-one process on the same data directory, saying why', async () => {
    const first = start();
    await first.waitFor(/Ctrl-C stops it/, 90_000);
    const second = start();
    await expect(second.waitFor(/Ctrl-C stops it/, 30_000)).rejects.toThrow(/is in use by process \d+/);
    expect(await first.stop()).toBe(0);
  });

  it('the CLI says what to fix when --to is wrong', async () => {
    const bad = await runShoalCli(['audit', 'replay', '--to', 'ten'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/expected a non-negative whole number, e\.g\. --to 1200/);
    const past = await runShoalCli(['audit', 'replay', '--to', '50'], env);
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/--to 50 is past the end of the log \(0 records\); use --to 0 or less/);
  });
});
