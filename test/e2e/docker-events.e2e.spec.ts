/**
 * The real docker CLI (v28, unmodified) against the API: `docker events --since … --until …`
 * shows Shoal's history, read from the log. The API runs in this process on an embedded
 * log; the docker binary is a separate process talking to its unix socket.
 */
import { TaskState } from '@shoal/contracts';
import { dockerOutput, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { startApi } from '../../apps/api/src/testing/api-harness';
import type { ApiHarness } from '../../apps/api/src/testing/api-harness';

const AUDITOR = 'auditor-token-for-docker-events';

describe('docker events, against Shoal', () => {
  let api: ApiHarness;
  let first = 0;
  let last = 0;
  const seconds = (iso: string): number => Date.parse(iso) / 1000;

  beforeAll(async () => {
    api = await startApi({ tokens: [{ token: AUDITOR, role: 'auditor' }] });
    const b = api.events;
    const web = serviceSpec('web');
    const history = [
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
      b.event('ServiceCreated', { id: 's1', spec: web }),
      b.event('TasksCreated', { tasks: [newTask('t1', 's1', web)] }),
      b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
      b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'only node' }] }),
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }),
      b.event('ServiceRemoved', { id: 's1' }),
    ];
    first = seconds(history[0]!.at);
    last = seconds(history[history.length - 1]!.at);
    await api.append(...history);
  });
  afterAll(() => api.close());

  const docker = async (...args: string[]) => dockerOutput(args, await api.docker(args));

  it('docker events --since --until prints the history from the log, and ends', async () => {
    const out = await docker('events', '--since', String(first), '--until', String(last + 1));
    const lines = out.trim().split('\n');
    expect(lines.map((line) => line.split(' ').slice(1, 4).join(' '))).toEqual([
      'node create n1',
      'service create s1',
      'task create t1',
      'task update t1',
      'task update t1',
      'task update t1',
      'service remove s1',
    ]);
    expect(lines[1]).toMatch(/^2026-01-01T00:00:0\d\.000000000Z service create s1 \(name=web\)$/);
  });

  it('docker events --filter and --format json', async () => {
    const out = await docker('events', '--since', new Date(first * 1000).toISOString(), '--until', String(last + 1), '--filter', 'type=service', '--format', '{{json .}}');
    const messages = out.trim().split('\n').map((line) => JSON.parse(line) as { Type: string; Action: string; Actor: { ID: string; Attributes: Record<string, string> } });
    expect(messages.map((m) => `${m.Type} ${m.Action} ${m.Actor.Attributes.name}`)).toEqual(['service create web', 'service remove web']);
    const tasks = await docker('events', '--since', String(first), '--until', String(last + 1), '--filter', 'service=web', '--filter', 'event=update', '--format', '{{.Actor.Attributes.name}} {{index .Actor.Attributes "state.new"}}');
    expect(tasks.trim().split('\n')).toEqual(['web.1.t1 PENDING', 'web.1.t1 ASSIGNED', 'web.1.t1 RUNNING']);
  });

  it('docker events with --until ahead follows the log live, then ends at until', async () => {
    const start = Date.now();
    const until = Math.ceil(start / 1000) + 3;
    const running = api.docker(['events', '--since', String(first), '--until', String(until), '--filter', 'type=node', '--format', '{{.Action}} {{.Actor.Attributes.name}}']);
    await api.append(api.events.event('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('node-2') }, { at: new Date(start).toISOString(), instance: 'dispatcher-live' }));
    const result = await running;
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(['create node-1', 'create node-2']);
  });

  it('over TCP, an auditor streams the history too', async () => {
    const out = await api.docker(['events', '--since', String(first), '--until', String(last + 1), '--filter', 'type=service', '--format', '{{.Action}}'], { token: AUDITOR });
    expect(out).toMatchObject({ code: 0, stdout: 'create\nremove\n' });
  });
});
