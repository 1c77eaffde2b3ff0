/**
 * `docker events --since … --until …` shows Shoal's history, read from the log: a service
 * created, its task made, placed and running, the service removed; filtered, as JSON,
 * followed live until `--until`, and over TCP as an auditor. On either system
 * (system-under-test.ts); a node, live-1, joins during the live story and is removed after.
 */
import { dockerOutput } from '@shoal/testing';
import { AUDITOR, NODE_1 } from './system-under-test';
import type { SystemHandle } from './system-under-test';

const LIVE = 'live-1';

export const dockerEventScenarios = (system: SystemHandle): void => {
  const docker = async (...args: string[]) => dockerOutput(args, await system.current.docker(args));
  /** Unix seconds to the millisecond: where the system is shared, what came before is not this history. */
  let since = '';
  let sinceMs = 0;
  let until = 0;
  let serviceId = '';

  beforeAll(async () => {
    sinceMs = Date.now();
    since = (sinceMs / 1000).toFixed(3);
    serviceId = (await docker('service', 'create', '--detach', '--name', 'site', '--constraint', `node.hostname==${NODE_1}`, 'nginx:1.27')).trim();
    await system.current.tasksRun('site', { replicas: 1, running: 1, node: NODE_1 });
    await docker('service', 'rm', 'site');
    until = Math.ceil(Date.now() / 1000) + 1;
  });

  it('docker events --since --until prints the history from the log, and ends', async () => {
    const out = await docker('events', '--since', since, '--until', String(until), '--filter', 'type=service', '--filter', 'type=task', '--filter', 'service=site', '--format', '{{.Type}} {{.Action}} {{.Actor.ID}} {{index .Actor.Attributes "state.new"}}');
    const lines = out.trim().split('\n').map((line) => line.trimEnd());
    // Docker ORs the values of one key and ANDs the keys: the service's own events and its task's.
    // What came after the service's removal is its task being stopped and deleted: the history up to there.
    const history = lines.slice(0, lines.indexOf(`service remove ${serviceId}`) + 1);
    expect(history[0]).toBe(`service create ${serviceId}`);
    const task = history[1]!.split(' ')[2]!;
    expect(history[1]).toBe(`task create ${task}`);
    expect(history.at(-1)).toBe(`service remove ${serviceId}`);
    const updates = history.slice(2, -1);
    expect(updates.every((line) => line.startsWith(`task update ${task} `))).toBe(true);
    // The states the allocator, the scheduler and the node's agent moved it through, in order (an agent may report more between).
    expect(updates.map((line) => line.split(' ')[3]).filter((state) => ['PENDING', 'ASSIGNED', 'RUNNING'].includes(state!))).toEqual(['PENDING', 'ASSIGNED', 'RUNNING']);
    // A line as Docker prints it: the time to the nanosecond, the type, the action, the id and the attributes.
    const plain = await docker('events', '--since', since, '--until', String(until), '--filter', 'type=service', '--filter', 'event=create');
    expect(plain).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z service create ${serviceId} \\(name=site\\)\\n$`));
  });

  it('docker events --filter and --format json', async () => {
    const out = await docker('events', '--since', new Date(sinceMs).toISOString(), '--until', String(until), '--filter', 'type=service', '--format', '{{json .}}');
    const messages = out.trim().split('\n').map((line) => JSON.parse(line) as { Type: string; Action: string; Actor: { ID: string; Attributes: Record<string, string> } });
    expect(messages.map((m) => `${m.Type} ${m.Action} ${m.Actor.Attributes.name}`)).toEqual(['service create site', 'service remove site']);
    const tasks = await docker('events', '--since', since, '--until', String(until), '--filter', 'service=site', '--filter', 'event=update', '--format', '{{.Actor.Attributes.name}} {{index .Actor.Attributes "state.new"}}');
    const states = tasks.trim().split('\n');
    expect(states.every((line) => /^site\.1\.\w+ [A-Z]+$/.test(line))).toBe(true);
    expect(states.map((line) => line.split(' ')[1]).filter((state) => ['PENDING', 'ASSIGNED', 'RUNNING'].includes(state!))).toEqual(['PENDING', 'ASSIGNED', 'RUNNING']);
  });

  it('docker events with --until ahead follows the log live, then ends at until', async () => {
    const from = (Date.now() / 1000).toFixed(3);
    const end = Math.ceil(Date.now() / 1000) + 8;
    const running = system.current.docker(['events', '--since', from, '--until', String(end), '--filter', 'type=node', '--filter', 'event=create', '--format', '{{.Action}} {{.Actor.Attributes.name}}']);
    await system.current.addNode(LIVE);
    const result = await running;
    expect(result.code).toBe(0);
    expect(Date.now()).toBeGreaterThanOrEqual((end - 1) * 1000);
    expect(result.stdout.trim().split('\n')).toEqual([`create ${LIVE}`]);
    // Gone again, for what shares the system.
    await system.current.nodeDown(LIVE);
    await docker('node', 'rm', LIVE);
    await system.current.forgetNode(LIVE);
  });

  it('over TCP, an auditor streams the history too', async () => {
    const out = await system.current.docker(['events', '--since', since, '--until', String(until), '--filter', 'type=service', '--format', '{{.Action}}'], { token: AUDITOR });
    expect(out).toMatchObject({ code: 0, stdout: 'create\nremove\n' });
  });
};
