import { TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { EventBuilder, clusterInit, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { startStandaloneApi } from '../spec-support/standalone-api';
import type { StandaloneApi } from '../spec-support/standalone-api';
import { EventsModule } from './events.module';

interface Message {
  Type: string;
  Action: string;
  Actor: { ID: string; Attributes: Record<string, string> };
  scope: string;
  time: number;
  timeNano: number;
}

const T0 = Date.parse('2026-01-01T00:00:00Z');
/** The builder's clock: the n-th event (from 1) is written at T0 + n s. */
const secondsAt = (n: number): number => T0 / 1000 + n;

const history = (): ShoalEvent[] => {
  const b = new EventBuilder('c1', T0);
  const web = serviceSpec('web', { kind: 'replicated', replicas: 1 });
  return [
    clusterInit(b), // 1 s
    b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }), // 2 s
    b.event('ServiceCreated', { id: 's1', spec: web }), // 3 s
    b.event('TasksCreated', { tasks: [newTask('t1', 's1', web)] }), // 4 s
    b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }), // 5 s
    b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'only node' }] }), // 6 s
    b.event('ServiceUpdated', { id: 's1', spec: { ...web, mode: { kind: 'replicated', replicas: 3 } } }, { expect: { serviceVersions: { s1: 9 } } }), // 7 s: rejected
    b.event('ServiceUpdated', { id: 's1', spec: { ...web, task: { container: { image: 'nginx:1.28' } }, mode: { kind: 'replicated', replicas: 3 } } }), // 8 s
    b.event('NetworkCreated', { id: 'net1', spec: { name: 'backend', driver: 'overlay' } }), // 9 s
    b.event('NodeSpecUpdated', { id: 'n1', spec: { labels: {}, role: 'worker', availability: 'drain' } }), // 10 s
    b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }), // 11 s
    b.event('NetworkRemoved', { id: 'net1' }), // 12 s
    b.event('ServiceRemoved', { id: 's1' }), // 13 s
  ];
};

const readAll = async (res: Response): Promise<Message[]> =>
  (await res.text())
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Message);

describe("Docker's /events from the log", () => {
  let api: StandaloneApi;

  beforeAll(async () => {
    api = await startStandaloneApi([EventsModule]);
    await api.append(history());
  });
  afterAll(() => api.close());

  const past = (query: string): Promise<Response> => api.get(`/events?since=0&until=${secondsAt(100)}${query}`);

  it('streams the whole history since the start, as Docker event messages, refused records left out', async () => {
    const res = await past('');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const messages = await readAll(res);
    expect(messages.map((m) => `${m.Type} ${m.Action} ${m.Actor.ID}`)).toEqual([
      'node create n1',
      'service create s1',
      'task create t1',
      'task update t1',
      'task update t1',
      'service update s1',
      'network create net1',
      'node update n1',
      'task update t1',
      'network remove net1',
      'service remove s1',
    ]);
    expect(messages[1]).toEqual({
      Type: 'service',
      Action: 'create',
      Actor: { ID: 's1', Attributes: { name: 'web' } },
      scope: 'swarm',
      time: secondsAt(3),
      timeNano: secondsAt(3) * 1e9,
    });
    expect(messages[5]!.Actor.Attributes).toEqual({ name: 'web', 'image.old': 'nginx:1.27', 'image.new': 'nginx:1.28', 'replicas.old': '1', 'replicas.new': '3' });
    expect(messages[7]!.Actor.Attributes).toEqual({ name: 'node-1', 'availability.old': 'active', 'availability.new': 'drain' });
    expect(messages[8]!.Actor.Attributes).toMatchObject({ name: 'web.1.t1', 'state.old': 'ASSIGNED', 'state.new': 'RUNNING', node: 'n1' });
    expect(messages[9]!.Actor.Attributes).toEqual({ name: 'backend' });
    expect(messages[10]!.Actor.Attributes).toEqual({ name: 'web' });
  });

  it('keeps to since and until, given as Unix seconds with fractions or RFC 3339', async () => {
    const window = await readAll(await api.get(`/events?since=${secondsAt(5)}.000000000&until=${secondsAt(9)}.500000000`));
    expect(window.map((m) => m.time)).toEqual([secondsAt(5), secondsAt(6), secondsAt(8), secondsAt(9)]);
    const iso = (n: number) => new Date((secondsAt(n)) * 1000).toISOString();
    const rfc = await readAll(await api.get(`/events?since=${iso(12)}&until=${iso(13)}`));
    expect(rfc.map((m) => `${m.Type} ${m.Action}`)).toEqual(['network remove', 'service remove']);
  });

  it('applies filters as Docker does: type, event, and service by name prefix (its tasks too)', async () => {
    const types = await readAll(await past(`&filters=${encodeURIComponent(JSON.stringify({ type: { service: true } }))}`));
    expect(types.map((m) => m.Action)).toEqual(['create', 'update', 'remove']);
    const legacy = await readAll(await past(`&filters=${encodeURIComponent(JSON.stringify({ type: ['network', 'node'], event: ['create'] }))}`));
    expect(legacy.map((m) => `${m.Type} ${m.Action}`)).toEqual(['node create', 'network create']);
    const byService = await readAll(await past(`&filters=${encodeURIComponent(JSON.stringify({ service: { web: true } }))}`));
    expect(new Set(byService.map((m) => m.Type))).toEqual(new Set(['service', 'task']));
    const byNode = await readAll(await past(`&filters=${encodeURIComponent(JSON.stringify({ node: { 'node-1': true }, type: { node: true } }))}`));
    expect(byNode.map((m) => m.Action)).toEqual(['create', 'update']);
    // A key Docker does not know is ignored, as Docker 20.10 ignores it: every event matches.
    const unknown = await readAll(await past(`&filters=${encodeURIComponent(JSON.stringify({ colour: { red: true } }))}`));
    expect(unknown).toEqual(await readAll(await past('')));
    expect(unknown.length).toBeGreaterThan(0);
  });

  it('without until, keeps streaming records as they are appended', async () => {
    const controller = new AbortController();
    const res = await api.get(`/events?since=${secondsAt(13)}&filters=${encodeURIComponent(JSON.stringify({ type: { network: true } }))}`, { signal: controller.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const b = new EventBuilder('c1', T0 + 60_000);
    await api.append([b.event('NetworkCreated', { id: 'net2', spec: { name: 'frontend', driver: 'overlay' } }, { instance: 'api-live' })]);
    let text = '';
    while (!text.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const message = JSON.parse(text.split('\n')[0]!) as Message;
    expect(message).toMatchObject({ Type: 'network', Action: 'create', Actor: { ID: 'net2', Attributes: { name: 'frontend' } } });
    controller.abort();
    await reader.cancel().catch(() => undefined);
  });

  it('without since, shows only what happens from now on', async () => {
    const controller = new AbortController();
    const res = await api.get('/events', { signal: controller.signal });
    const reader = res.body!.getReader();
    const b = new EventBuilder('c1', T0 + 120_000);
    await api.append([b.event('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('node-2') }, { instance: 'dispatcher-live' })]);
    let text = '';
    while (!text.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ Type: 'node', Action: 'create', Actor: { ID: 'n2' } });
    controller.abort();
    await reader.cancel().catch(() => undefined);
  });

  it.each([
    ['since=yesterday', /^since: "yesterday" is not a time/],
    ['until=12:00', /^until: "12:00" is not a time/],
    [`since=${secondsAt(9)}&until=${secondsAt(5)}`, new RegExp(`^\`since\` time \\(${secondsAt(9)}\\) cannot be after \`until\` time \\(${secondsAt(5)}\\)$`)],
    ['filters=not-json', /^filters: invalid JSON/],
    ['filters={"type":"service"}', /^filters: type: expected a list of strings/],
  ])("answers 400 in Docker's error shape for %s", async (query, message) => {
    const res = await api.get(`/events?${query.replace('{', encodeURIComponent('{')).replace(/"/g, '%22')}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(message);
  });
});
