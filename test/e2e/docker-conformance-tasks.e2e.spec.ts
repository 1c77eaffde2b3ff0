/**
 * Docker conformance of `/tasks` (every filter, on tasks that exist) and of
 * `/services/{id}/logs` and `/tasks/{id}/logs` (status codes, framing and refusals), side by
 * side: the test run's engine in swarm mode (one node) and Shoal with one simulated node of
 * its own (test/conformance/cluster-side.ts), at API 1.41. The tasks compared are ones
 * neither side runs: a service constrained to a node label no node has stays pending on
 * both, so the engine starts no container; a service of no replicas has no output to frame.
 */
import { Differential } from '../conformance/differential';
import type { SideBySide } from '../conformance/differential';
import { startShoalWithNode } from '../conformance/cluster-side';
import type { ShoalNodeSide } from '../conformance/cluster-side';
import { rawExchange } from '../conformance/raw-exchange';
import type { RawExchange } from '../conformance/raw-exchange';
import { conformanceEngine, ensureSwarm } from '../conformance/sides';

const IMAGE = 'shoal-test/busybox:latest';
const run = `tk${Date.now().toString(36)}`;
type Ids = { engine: string; shoal: string };
type Listed = { ID: string; Slot?: number; ServiceID: string; DesiredState: string }[];
const words = (answer: { readonly body: unknown }): string => (answer.body as { message: string }).message.replace(/^rpc error: code = \w+ desc = /, '');
const bySlot = (body: unknown): unknown => (Array.isArray(body) ? [...(body as Listed)].sort((a, b) => (a.Slot ?? 0) - (b.Slot ?? 0)) : body);

describe('/tasks and service logs at API 1.41, Shoal beside a real engine in swarm mode', () => {
  let shoal: ShoalNodeSide | undefined;
  let diff: Differential;
  let sockets: Ids;
  const services: Record<'pending' | 'zero' | 'forced', Ids> = { pending: { engine: '', shoal: '' }, zero: { engine: '', shoal: '' }, forced: { engine: '', shoal: '' } };
  const names = { pending: `${run}-pend`, zero: `${run}-zero`, forced: `${run}-forced` };
  /** Each side's node: the engine's manager, Shoal's simulated node. */
  const nodes: Ids = { engine: '', shoal: '' };

  beforeAll(async () => {
    const engine = conformanceEngine();
    await ensureSwarm(engine);
    shoal = await startShoalWithNode('conformance-tasks');
    diff = new Differential(engine, shoal.socket);
    sockets = { engine, shoal: shoal.socket };
    nodes.engine = ((await diff.engineOnly('GET', '/info')).body as { Swarm: { NodeID: string } }).Swarm.NodeID;
    nodes.shoal = shoal.nodeId;
    const specs = {
      pending: {
        Name: names.pending,
        Labels: { [run]: 'pending' },
        TaskTemplate: { ContainerSpec: { Image: IMAGE, Labels: { role: 'web' } }, Placement: { Constraints: [`node.labels.${run}==none`] } },
        Mode: { Replicated: { Replicas: 2 } },
      },
      zero: { Name: names.zero, TaskTemplate: { ContainerSpec: { Image: IMAGE } }, Mode: { Replicated: { Replicas: 0 } } },
      forced: { Name: names.forced, TaskTemplate: { ContainerSpec: { Image: IMAGE }, Placement: { Constraints: [`node.labels.${run}==none`] } }, Mode: { Replicated: { Replicas: 1 } } },
    };
    for (const kind of ['pending', 'zero', 'forced'] as const) {
      const created = await diff.send('POST', '/services/create', specs[kind]);
      services[kind] = { engine: created.engine.status === 201 ? (created.engine.body as { ID: string }).ID : '', shoal: created.shoal.status === 201 ? (created.shoal.body as { ID: string }).ID : '' };
      expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
    }
    // Until both schedulers have said why the pending service's two tasks cannot be placed.
    for (let attempt = 0; attempt < 150; attempt++) {
      const answer = await tasksOf({ service: [names.pending] });
      const explained = (body: unknown) => Array.isArray(body) && body.length === 2 && (body as { Status: { Err?: string } }[]).every((task) => (task.Status.Err ?? '') !== '');
      if (explained(answer.engine.body) && explained(answer.shoal.body)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 180_000);
  afterAll(async () => {
    for (const kind of ['pending', 'zero', 'forced'] as const) {
      if (services[kind].engine) await diff.engineOnly('DELETE', `/services/${services[kind].engine}`);
      if (services[kind].shoal) await diff.shoalOnly('DELETE', `/services/${services[kind].shoal}`);
    }
    await shoal?.close();
  });

  const tasksOf = async (filters: object | { engine: object; shoal: object }): Promise<SideBySide> => {
    const each = 'engine' in filters && 'shoal' in filters ? (filters as { engine: object; shoal: object }) : { engine: filters, shoal: filters };
    const answer = await diff.sendEach('GET', {
      engine: `/tasks?filters=${encodeURIComponent(JSON.stringify(each.engine))}`,
      shoal: `/tasks?filters=${encodeURIComponent(JSON.stringify(each.shoal))}`,
    });
    return { engine: { ...answer.engine, body: bySlot(answer.engine.body) }, shoal: { ...answer.shoal, body: bySlot(answer.shoal.body) } };
  };
  // Pinned (docs/docker-compatibility.md, /tasks): Shoal names a task (`<service>.<slot>`, what
  // the CLI shows), where SwarmKit leaves its Annotations.Name empty; and it shows the task
  // spec's Runtime, as later Docker versions do.
  const pinned = (count: number): string[] => Array.from({ length: count }, (_, i) => [`[${i}].Name: engine absent, shoal "${names.pending}.${i + 1}"`, `[${i}].Spec.Runtime: engine absent, shoal "container"`]).flat();

  it("a pending service's tasks list the same on both: spec, slot, desired state, and the scheduler's reason (no suitable node)", async () => {
    const answer = await tasksOf({ service: [names.pending] });
    expect(Differential.compare(answer)).toEqual({ status: [], body: pinned(2) });
    expect((answer.shoal.body as { Status: unknown }[]).map((task) => task.Status)).toEqual(
      Array(2).fill({ Timestamp: expect.any(String), State: 'pending', Message: 'pending task scheduling', Err: 'no suitable node (scheduling constraints not satisfied on 1 node)', PortStatus: {} }),
    );
  });

  it('every filter finds the same tasks on both: service (name, id, id prefix), desired-state, name (prefix), id (prefix), node, label, _up-to-date, several at once', async () => {
    type Case = [string, object | { engine: object; shoal: object }, number];
    const taskIds = {
      engine: (await diff.engineOnly('GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [names.pending] }))}`)).body as Listed,
      shoal: (await diff.shoalOnly('GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [names.pending] }))}`)).body as Listed,
    };
    const slotOne = { engine: taskIds.engine.find((task) => task.Slot === 1)!.ID, shoal: taskIds.shoal.find((task) => task.Slot === 1)!.ID };
    const cases: Case[] = [
      ['service by name', { service: [names.pending] }, 2],
      ['service by id', { engine: { service: [services.pending.engine] }, shoal: { service: [services.pending.shoal] } }, 2],
      ['service by id prefix', { engine: { service: [services.pending.engine.slice(0, 8)] }, shoal: { service: [services.pending.shoal.slice(0, 8)] } }, 2],
      ['a service with no tasks', { service: [names.zero] }, 0],
      ['desired-state running', { service: [names.pending], 'desired-state': ['running'] }, 2],
      ['desired-state shutdown', { service: [names.pending], 'desired-state': ['shutdown'] }, 0],
      ['desired-state accepted', { service: [names.pending], 'desired-state': ['accepted'] }, 0],
      ['desired-state running and shutdown', { service: [names.pending], 'desired-state': ['running', 'shutdown'] }, 2],
      ['name, the service', { name: [names.pending] }, 2],
      ['name, a prefix of the service', { name: [names.pending.slice(0, -1)] }, 2],
      ['name, one slot', { name: [`${names.pending}.1`] }, 1],
      ['name, none', { name: [`${run}-none`] }, 0],
      ['id, a prefix of one', { engine: { id: [slotOne.engine.slice(0, 10)] }, shoal: { id: [slotOne.shoal.slice(0, 10)] } }, 1],
      ['node, its own (the tasks are not placed)', { engine: { service: [names.pending], node: [nodes.engine] }, shoal: { service: [names.pending], node: [nodes.shoal] } }, 0],
      ["label, a key of the service's labels (SwarmKit matches a task by its service's)", { label: [run] }, 2],
      ["label, key=value of the service's", { label: [`${run}=pending`] }, 2],
      ["label, key=value the service's does not have", { label: [`${run}=other`] }, 0],
      ["label, the container's (not matched)", { service: [names.pending], label: ['role=web'] }, 0],
      ['_up-to-date', { service: [names.pending], '_up-to-date': ['true'] }, 2],
      ['service and name and desired-state', { service: [names.pending], name: [`${names.pending}.2`], 'desired-state': ['running'] }, 1],
    ];
    for (const [what, filters, count] of cases) {
      const answer = await tasksOf(filters);
      const shown = (answer.shoal.body as { Slot: number }[]).map((task) => task.Slot);
      const slots = count === 1 ? [what.includes('.2') || what.includes('several') ? 2 : 1] : count === 2 ? [1, 2] : [];
      const comparison = Differential.compare(answer);
      expect({ what, status: comparison.status, count: [(answer.engine.body as unknown[]).length, shown.length] }).toEqual({ what, status: [], count: [count, count] });
      expect({ what, body: comparison.body }).toEqual({ what, body: shown.map((slot, i) => [`[${i}].Name: engine absent, shoal "${names.pending}.${slot}"`, `[${i}].Spec.Runtime: engine absent, shoal "container"`]).flat() });
      if (what !== 'service and name and desired-state') expect({ what, slots: shown }).toEqual({ what, slots: what === 'id, a prefix of one' ? [1] : slots });
    }
    // A node that is not there, a service that is not there: 404 on both, in the same words.
    for (const [what, filters] of [['node', { node: [`${run}-none`] }], ['service', { service: [`${run}-none`] }]] as const) {
      const answer = await tasksOf(filters);
      expect({ what, ...Differential.compare(answer) }).toEqual({ what, status: [], body: [] });
      expect({ what, status: answer.shoal.status, words: words(answer.shoal) }).toEqual({ what, status: 404, words: words(answer.engine) });
    }
    const unknown = await tasksOf({ colour: ['red'] });
    expect(Differential.compare(unknown)).toEqual({ status: [], body: [] });
    expect([unknown.shoal.status, words(unknown.shoal)]).toEqual([400, words(unknown.engine)]);
  });

  it('a forced update of a pending task: the old task is desired shutdown and a new one pending on both; Docker also marks the old one shut down, Shoal leaves it pending (pinned)', async () => {
    const current = await diff.sendEach('GET', { engine: `/services/${services.forced.engine}`, shoal: `/services/${services.forced.shoal}` });
    const version = (body: unknown): number => (body as { Version: { Index: number } }).Version.Index;
    const spec = (current.engine.body as { Spec: { TaskTemplate: object } }).Spec;
    const forced = { ...spec, TaskTemplate: { ...spec.TaskTemplate, ForceUpdate: 1 } };
    const updated = await diff.sendEach(
      'POST',
      { engine: `/services/${services.forced.engine}/update?version=${version(current.engine.body)}`, shoal: `/services/${services.forced.shoal}/update?version=${version(current.shoal.body)}` },
      forced,
    );
    expect([updated.engine.status, updated.shoal.status]).toEqual([200, 200]);
    type Task = { DesiredState: string; Status: { State: string } };
    let answer = await tasksOf({ service: [names.forced] });
    const replaced = (body: unknown) => Array.isArray(body) && (body as Task[]).length === 2 && (body as Task[]).filter((task) => task.DesiredState === 'shutdown').length === 1;
    for (let attempt = 0; attempt < 100 && !(replaced(answer.engine.body) && replaced(answer.shoal.body)); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      answer = await tasksOf({ service: [names.forced] });
    }
    for (const [state, count] of [['shutdown', 1], ['running', 1], ['accepted', 0]] as const) {
      const filtered = await tasksOf({ service: [names.forced], 'desired-state': [state] });
      expect({ state, counts: [(filtered.engine.body as unknown[]).length, (filtered.shoal.body as unknown[]).length] }).toEqual({ state, counts: [count, count] });
    }
    const old = (side: 'engine' | 'shoal') => (answer[side].body as Task[]).find((task) => task.DesiredState === 'shutdown')!.Status.State;
    expect([old('engine'), old('shoal')]).toEqual(['shutdown', 'pending']);
  });

  describe('logs', () => {
    const logs = async (path: (side: 'engine' | 'shoal') => string): Promise<Record<'engine' | 'shoal', RawExchange>> => {
      const [engine, shoalAnswer] = await Promise.all((['engine', 'shoal'] as const).map((side) => rawExchange(sockets[side], 'GET', `/v1.41${path(side)}`, 15_000)));
      return { engine: engine!, shoal: shoalAnswer! };
    };
    const json = (answer: RawExchange): { message: string } => JSON.parse(answer.body.toString('utf8')) as { message: string };

    it('a service with no output (by id, id prefix or name; stdout, stderr, timestamps, details, tail, since, until): 200 and an empty stream on both', async () => {
      const refs = [(side: 'engine' | 'shoal') => services.zero[side], (side: 'engine' | 'shoal') => services.zero[side].slice(0, 8), () => names.zero];
      const queries = ['stdout=1', 'stderr=1', 'stdout=1&stderr=1&timestamps=1&details=1', 'stdout=1&tail=10', 'stdout=1&tail=all', 'stdout=1&since=5', 'stdout=1&until=5', 'stdout=1&follow=0'];
      for (const ref of refs) {
        for (const query of queries) {
          const answer = await logs((side) => `/services/${ref(side)}/logs?${query}`);
          const seen = { status: [answer.engine.status, answer.shoal.status], bytes: [answer.engine.body.length, answer.shoal.body.length] };
          expect({ query, ref: ref('shoal'), ...seen }).toEqual({ query, ref: ref('shoal'), status: [200, 200], bytes: [0, 0] });
          // Pinned (docs/docker-compatibility.md, logs): Docker 20.10 sends no Content-Type; Shoal
          // sends the raw stream's, as later Docker versions do for a service without a TTY at 1.41.
          expect([answer.engine.headers['content-type'], answer.shoal.headers['content-type']]).toEqual([undefined, 'application/vnd.docker.raw-stream']);
        }
      }
    });

    it('an unknown service or task, or a service by a part of its name: 404 on both in the same words', async () => {
      for (const path of [`/services/${run}-none/logs?stdout=1`, `/tasks/${run}-none/logs?stdout=1`, `/services/${names.zero.slice(0, -2)}/logs?stdout=1`]) {
        const answer = await logs(() => path);
        expect({ path, status: [answer.engine.status, answer.shoal.status], words: json(answer.shoal).message }).toEqual({ path, status: [404, 404], words: json(answer.engine).message });
      }
    });

    it("what Docker 20.10 answers 500 (no stream chosen, a tail or since it cannot read) Shoal answers 400, the client's mistake, in the same error shape (pinned)", async () => {
      const cases: [string, (side: 'engine' | 'shoal') => string, 'same' | 'contains' | 'own'][] = [
        ['no stream', (side) => `/services/${services.zero[side]}/logs`, 'same'],
        ['no stream, an unknown service (the streams are checked first)', () => `/services/${run}-none/logs`, 'same'],
        ['no stream, a task', () => `/tasks/${run}-none/logs`, 'same'],
        ['a tail that is not a number', (side) => `/services/${services.zero[side]}/logs?stdout=1&tail=bogus`, 'contains'],
        ['a since that is not a time', (side) => `/services/${services.zero[side]}/logs?stdout=1&since=bogus`, 'own'],
      ];
      for (const [what, path, wording] of cases) {
        const answer = await logs(path);
        expect({ what, status: [answer.engine.status, answer.shoal.status], shape: Object.keys(json(answer.shoal)) }).toEqual({ what, status: [500, 400], shape: ['message'] });
        if (wording === 'same') expect({ what, words: json(answer.shoal).message }).toEqual({ what, words: json(answer.engine).message });
        if (wording === 'contains') expect({ what, words: json(answer.shoal).message }).toEqual({ what, words: expect.stringContaining(json(answer.engine).message) });
        if (wording === 'own') expect({ what, words: json(answer.shoal).message }).toEqual({ what, words: expect.stringMatching(/^invalid value for "since": "bogus" is not a time/) });
      }
    });
  });
});
