import { TaskState } from '@shoal/contracts';
import { emptyState, evolve } from '@shoal/domain';
import { EventBuilder, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import fc from 'fast-check';
import { captureBefore, dockerEventsOf, encodeDockerEvent } from './docker-event';
import type { DockerEventMessage } from './docker-event';
import { matchesEventFilters, parseEventFilters } from './event-filters';
import { parseEventTime } from './event-time';

describe('dockerEventsOf', () => {
  it('gives events only for the items of a batch that applied', () => {
    const b = new EventBuilder('c1');
    const web = serviceSpec('web');
    const state = emptyState();
    for (const event of [b.event('ServiceCreated', { id: 's1', spec: web })]) evolve(state, event);
    const event = b.event('TasksCreated', { tasks: [newTask('t1', 's1', web), newTask('t10', 'nope', web), newTask('t11', 's1', web, { specVersion: 7 })] });
    const before = captureBefore(state, event);
    const verdict = evolve(state, event);
    expect(verdict.status).toBe('partial');
    expect(dockerEventsOf(event, verdict, before, state).map((m) => `${m.Action} ${m.Actor.ID} ${m.Actor.Attributes.name}`)).toEqual(['create t1 web.1.t1']);
  });

  it("names a replicated job's tasks by Docker's slots, from 0", () => {
    const b = new EventBuilder('c1');
    const job = serviceSpec('batch', { kind: 'replicated-job', maxConcurrent: 2, totalCompletions: 2 });
    const state = emptyState();
    evolve(state, b.event('ServiceCreated', { id: 's1', spec: job }));
    const event = b.event('TasksCreated', { tasks: [newTask('t1', 's1', job, { slot: 1, jobIteration: 0 }), newTask('t2', 's1', job, { slot: 2, jobIteration: 0 })] });
    const before = captureBefore(state, event);
    const messages = dockerEventsOf(event, evolve(state, event), before, state);
    expect(messages.map((m) => `${m.Actor.Attributes.name} ${m.Actor.Attributes.slot}`)).toEqual(['batch.0.t1 0', 'batch.1.t2 1']);
  });

  it("names a swarm network and nothing else, and gives its allocation as an update, as SwarmKit's allocator writes it", () => {
    const b = new EventBuilder('c1');
    const state = emptyState();
    const of = (event: ReturnType<typeof b.event>) => {
      const before = captureBefore(state, event);
      return dockerEventsOf(event, evolve(state, event), before, state).map((m) => ({ Action: m.Action, ID: m.Actor.ID, Attributes: m.Actor.Attributes }));
    };
    expect(of(b.event('NetworkCreated', { id: 'net1', spec: { name: 'backend', driver: 'overlay' } }))).toEqual([{ Action: 'create', ID: 'net1', Attributes: { name: 'backend' } }]);
    expect(of(b.event('NetworkAllocated', { id: 'net1', subnet: '10.0.1.0/24', gateway: '10.0.1.1' }))).toEqual([{ Action: 'update', ID: 'net1', Attributes: { name: 'backend' } }]);
    expect(of(b.event('NetworkRemoved', { id: 'net1' }))).toEqual([{ Action: 'remove', ID: 'net1', Attributes: { name: 'backend' } }]);
    expect(of(b.event('NetworkAllocated', { id: 'net1', subnet: '10.0.2.0/24', gateway: '10.0.2.1' }))).toEqual([]);
  });

  it("gives a service's allocation as an update naming it, as SwarmKit's allocator writes it; none for a stale one", () => {
    const b = new EventBuilder('c1');
    const state = emptyState();
    evolve(state, b.event('ServiceCreated', { id: 's1', spec: serviceSpec('web') }));
    const of = (event: ReturnType<typeof b.event>) => {
      const before = captureBefore(state, event);
      return dockerEventsOf(event, evolve(state, event), before, state).map((m) => ({ Type: m.Type, Action: m.Action, ID: m.Actor.ID, Attributes: m.Actor.Attributes }));
    };
    const endpoint = { virtualIps: [{ network: 'ingress', address: '10.0.0.2/24' }], ports: [] };
    expect(of(b.event('ServiceEndpointsAllocated', { services: [{ id: 's1', specVersion: 1, endpoint }] }))).toEqual([{ Type: 'service', Action: 'update', ID: 's1', Attributes: { name: 'web' } }]);
    expect(of(b.event('ServiceEndpointsAllocated', { services: [{ id: 's9', specVersion: 1, endpoint }] }))).toEqual([]);
    // Allocated again as it was, after a spec update: no change, no message.
    evolve(state, b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('web', { kind: 'replicated', replicas: 2 }) }));
    expect(of(b.event('ServiceEndpointsAllocated', { services: [{ id: 's1', specVersion: 2, endpoint }] }))).toEqual([]);
    expect(state.services.get('s1')?.endpointVersion).toBe(2);
  });

  it('gives nothing for a rejected record', () => {
    const b = new EventBuilder('c1');
    const state = emptyState();
    const event = b.event('NodeRemoved', { id: 'n9' });
    const before = captureBefore(state, event);
    const verdict = evolve(state, event);
    expect(dockerEventsOf(event, verdict, before, state)).toEqual([]);
  });

  it('names the node in a status change, with the old and new state', () => {
    const b = new EventBuilder('c1');
    const state = emptyState();
    evolve(state, b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }));
    const event = b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] });
    const before = captureBefore(state, event);
    const [message] = dockerEventsOf(event, evolve(state, event), before, state);
    expect(message).toMatchObject({ Type: 'node', Action: 'update', Actor: { ID: 'n1', Attributes: { name: 'node-1', 'state.old': 'ready', 'state.new': 'down' } } });
  });

  it('gives one update per task of a report, from its state before the record to its state after', () => {
    const b = new EventBuilder('c1');
    const web = serviceSpec('web');
    const state = emptyState();
    for (const event of [
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
      b.event('ServiceCreated', { id: 's1', spec: web }),
      b.event('TasksCreated', { tasks: [newTask('t1', 's1', web)] }),
      b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
      b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'only ready node' }] }),
    ])
      evolve(state, event);
    const passedThrough = [TaskState.ACCEPTED, TaskState.PREPARING, TaskState.READY, TaskState.STARTING, TaskState.RUNNING];
    const event = b.event('TaskStatusesReported', { nodeId: 'n1', statuses: passedThrough.map((s) => ({ id: 't1', state: s, at: b.now() })) });
    const before = captureBefore(state, event);
    const messages = dockerEventsOf(event, evolve(state, event), before, state);
    expect(messages.map((m) => `${m.Action} ${m.Actor.ID} ${m.Actor.Attributes['state.old']} -> ${m.Actor.Attributes['state.new']}`)).toEqual(['update t1 ASSIGNED -> RUNNING']);
  });

  describe('configs', () => {
    const b = new EventBuilder('c1');
    const spec = { name: 'app-conf', data: Buffer.from('listen 80;\n').toString('base64') };
    const ref = { configId: 'cfg1', configName: 'app-conf', file: { name: '/etc/app.conf', uid: '0', gid: '0', mode: 0o444 } };
    const state = emptyState();
    const apply = (event: ReturnType<typeof b.event>) => {
      const before = captureBefore(state, event);
      return dockerEventsOf(event, evolve(state, event), before, state).map((m) => `${m.Type} ${m.Action} ${m.Actor.ID} ${m.Actor.Attributes.name}`);
    };

    it('gives create, update and remove, named, and nothing for a removal refused while a service uses the config', () => {
      expect(apply(b.event('ConfigCreated', { id: 'cfg1', spec }))).toEqual(['config create cfg1 app-conf']);
      expect(apply(b.event('ConfigUpdated', { id: 'cfg1', spec: { ...spec, labels: { tier: 'web' } } }))).toEqual(['config update cfg1 app-conf']);
      expect(apply(b.event('ServiceCreated', { id: 's1', spec: serviceSpec('web', { kind: 'replicated', replicas: 1 }, { task: { container: { image: 'nginx', configs: [ref] } } }) }))).toEqual([
        'service create s1 web',
      ]);
      expect(apply(b.event('ConfigRemoved', { id: 'cfg1' }))).toEqual([]);
      expect(apply(b.event('ConfigUpdated', { id: 'cfg1', spec: { ...spec, data: 'QQ==' } }))).toEqual([]);
      apply(b.event('ServiceRemoved', { id: 's1' }));
      // The name comes from the config as it was before the record removed it.
      expect(apply(b.event('ConfigRemoved', { id: 'cfg1' }))).toEqual(['config remove cfg1 app-conf']);
    });

    it('are found by `type=config` and by `config=<name or id prefix>`', () => {
      const event = b.event('ConfigCreated', { id: 'cfg2', spec: { ...spec, name: 'db-conf' } });
      const [message] = dockerEventsOf(event, evolve(state, event), captureBefore(state, event), state);
      const matches = (filters: object) => {
        const parsed = parseEventFilters(JSON.stringify(filters));
        if (!parsed.ok) throw new Error(parsed.message);
        return matchesEventFilters(parsed.filters, message!);
      };
      expect(matches({ type: ['config'] })).toBe(true);
      expect(matches({ type: ['service'] })).toBe(false);
      expect(matches({ config: ['db-'] })).toBe(true);
      expect(matches({ config: ['cfg2'] })).toBe(true);
      expect(matches({ config: ['app-conf'] })).toBe(false);
    });
  });

  it('writes timeNano exactly, past 2^53', () => {
    const line = encodeDockerEvent({
      Type: 'service',
      Action: 'create',
      Actor: { ID: 's1', Attributes: { name: 'web' } },
      scope: 'swarm',
      time: 1767225601,
      timeNano: 1767225601123000000n,
    });
    expect(line).toBe('{"Type":"service","Action":"create","Actor":{"ID":"s1","Attributes":{"name":"web"}},"scope":"swarm","time":1767225601,"timeNano":1767225601123000000}\n');
  });

  it('writes every message as JSON.stringify would, names and attributes with any characters, a line each', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('service', 'node', 'network', 'config', 'secret', 'task'),
        fc.constantFrom('create', 'update', 'remove'),
        fc.string({ unit: 'binary' }),
        fc.dictionary(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })),
        fc.integer({ min: 0, max: 4_102_444_800 }),
        fc.integer({ min: 0, max: 999_999_999 }),
        (Type, Action, ID, Attributes, time, fraction) => {
          const message = { Type, Action, Actor: { ID, Attributes }, scope: 'swarm', time, timeNano: BigInt(time) * 1_000_000_000n + BigInt(fraction) } as DockerEventMessage;
          const line = encodeDockerEvent(message);
          expect(line.endsWith('}\n') && !line.slice(0, -1).includes('\n')).toBe(true);
          const { timeNano, ...rest } = message;
          expect(line).toBe(`${JSON.stringify(rest).slice(0, -1)},"timeNano":${timeNano}}\n`);
          expect(JSON.parse(line)).toEqual({ ...rest, timeNano: Number(timeNano) });
        },
      ),
    );
  });
});

describe('event times and filters', () => {
  it('reads Unix seconds with fractions and RFC 3339, in nanoseconds', () => {
    expect(parseEventTime('since', '1767225601.5')).toEqual({ ok: true, ns: 1767225601500000000n });
    expect(parseEventTime('since', '1767225601.000000001')).toEqual({ ok: true, ns: 1767225601000000001n });
    expect(parseEventTime('since', '2026-01-01T00:00:01Z')).toEqual({ ok: true, ns: 1767225601000000000n });
    expect(parseEventTime('until', '1h')).toMatchObject({ ok: false, message: expect.stringMatching(/^until: "1h" is not a time/) });
  });

  it('matches as Docker does: exact type and event, fuzzy names, labels', () => {
    const parsed = parseEventFilters(JSON.stringify({ type: { task: true }, service: ['we'], label: ['node=n1'] }));
    if (!parsed.ok) throw new Error(parsed.message);
    const message = (ID: string, name: string, extra: Record<string, string> = {}) => ({
      Type: 'task' as const,
      Action: 'update' as const,
      Actor: { ID, Attributes: { name, ...extra } },
      scope: 'swarm' as const,
      time: 0,
      timeNano: 0n,
    });
    expect(matchesEventFilters(parsed.filters, message('t1', 'web.1.t1', { node: 'n1' }))).toBe(true);
    expect(matchesEventFilters(parsed.filters, message('t1', 'web.1.t1', { node: 'n2' }))).toBe(false);
    expect(matchesEventFilters(parsed.filters, message('t1', 'api.1.t1', { node: 'n1' }))).toBe(false);
  });
});
