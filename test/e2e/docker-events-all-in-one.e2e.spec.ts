/**
 * The real docker CLI against `npm start` (every component and three simulated nodes in
 * one process): a network and a service on it, then `docker events --since … --until …`
 * shows what every component did — the service created, its task created, allocated,
 * assigned and running — and the audit surface explains the running task and verifies
 * the log.
 */
import { join } from 'node:path';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { dockerCliOk } from '../../libs/testing/src/processes/docker-cli';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';

describe('docker events and docker network against npm start', () => {
  let shoal: ShoalProcesses;
  let dataDir: string;

  const docker = (...args: string[]): Promise<string> => dockerCliOk(dataDir, args);

  beforeAll(async () => {
    shoal = ShoalProcesses.embedded('events-aio', { SHOAL_API_PORT: '0', SHOAL_DISPATCHER_PORT: '0' });
    dataDir = shoal.dataDir;
    await shoal.start().waitFor(/Ctrl-C stops it/, 90_000);
  });
  afterAll(() => shoal?.close());

  it("shows every component's work on a service's task, and the audit explains and verifies it", async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    await docker('network', 'create', '-d', 'overlay', 'backend');
    expect(await docker('service', 'create', '--name', 'api', '--network', 'backend', 'nginx:1.27')).toMatch(/verify: Service \w+ converged/);
    const until = Math.ceil(Date.now() / 1000);

    const events = async (...filters: string[]): Promise<string[]> =>
      (
        await docker('events', '--since', String(since), '--until', String(until), ...filters, '--format', '{{.Type}} {{.Action}} {{.Actor.Attributes.name}} {{index .Actor.Attributes "state.new"}}')
      )
        .trim()
        .split('\n')
        .map((line) => line.trimEnd());
    // Docker ANDs different filter keys: a network filter and a service filter are asked apart.
    // The allocator's work on the network is an update, as SwarmKit's allocator writes it (compared side by side in docker-conformance-events).
    expect(await events('--filter', 'network=backend')).toEqual(['network create backend', 'network update backend']);
    const lines = await events('--filter', 'service=api');
    expect(lines[0]).toBe('service create api');
    const task = lines.filter((line) => line.startsWith('task ')).map((line) => line.split(' ').slice(1).join(' '));
    const name = task[0]!.split(' ')[1]!;
    expect(name).toMatch(/^api\.1\.\w+$/);
    expect(task).toEqual(expect.arrayContaining([`create ${name}`, `update ${name} PENDING`, `update ${name} ASSIGNED`, `update ${name} RUNNING`]));

    const socket = join(dataDir, 'shoal.sock');
    const taskId = name.split('.')[2]!;
    const explain = await dockerApi<{ running: boolean; reason: string; placement?: string }>(socket, 'GET', `/shoal/v1/tasks/${taskId}/explain`);
    expect(explain.body).toMatchObject({ running: true, reason: 'running' });
    const history = await dockerApi<{ placement: string | null; records: { type: string }[] }>(socket, 'GET', `/shoal/v1/audit/tasks/${taskId}/history`);
    expect(history.body.placement).toEqual(expect.any(String));
    expect(history.body.records.map((r) => r.type)).toEqual(expect.arrayContaining(['TasksCreated', 'TasksAllocated', 'TasksAssigned', 'TaskStatusesReported']));
    const verify = await dockerApi<{ agree: boolean }>(socket, 'GET', '/shoal/v1/audit/verify');
    expect(verify.body.agree).toBe(true);
  });
});
