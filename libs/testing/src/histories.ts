/**
 * fast-check arbitraries for histories: random sequences of records over small id pools,
 * so that events hit existing entities often enough to apply and miss often enough to be
 * refused — plus poison records and redeliveries, as a real log can carry them.
 */
import fc from 'fast-check';
import { DEFAULT_CLUSTER_SPEC, TaskState, encode } from '@shoal/contracts';
import type { Component, NodeState, ShoalEvent, Task } from '@shoal/contracts';
import { emptyState, evolve } from '@shoal/domain';
import { EventBuilder, keptJoinTokens, newTask, nodeDescription, serviceSpec } from './builders';

const TASK_STATES = Object.values(TaskState);
const NODE_STATES: NodeState[] = ['ready', 'down', 'disconnected', 'unknown'];
const COMPONENTS: Component[] = ['orchestrator', 'scheduler', 'allocator', 'dispatcher', 'reaper'];

type Step = readonly [kind: number, a: number, b: number, c: number];

// Lifecycle steps (create, allocate, assign, report) weigh more, so tasks get far.
const KINDS = [0, 1, 2, 3, 4, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 9, 10, 11, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20];
const step: fc.Arbitrary<Step> = fc.tuple(fc.constantFrom(...KINDS), fc.nat(30), fc.nat(30), fc.nat(30));

const POISON = [
  '{"id":',
  '{"id":"x","type":"ServiceExploded","v":1,"cluster":"c1","at":"t","by":{"component":"api","instance":"i","term":0},"seq":1,"data":{}}',
  // A known type with data of the wrong shape. (A version newer than this build reads is
  // not poison: a reader stops there, see Projection.halted, so it has specs of its own.)
  '{"id":"x","type":"ServiceRemoved","v":1,"cluster":"c1","at":"t","by":{"component":"api","instance":"i","term":0},"seq":1,"data":{"id":7}}',
  'null',
];

/** Interprets abstract steps as records (encoded envelopes or poison strings). */
export const historyFromSteps = (steps: readonly Step[]): string[] => {
  const b = new EventBuilder();
  const out: string[] = [];
  const terms = new Map<Component, number>();
  // The generator steers by the state so far: lifecycle steps mostly pick tasks that
  // are at the right stage, so histories reach RUNNING and beyond, not only refusals.
  const state = emptyState();
  const push = (event: ShoalEvent): void => {
    evolve(state, event);
    out.push(encode(event));
  };
  const taskIn = (i: number, accept: (t: Task) => boolean): string => {
    if (i % 5 === 0) return task(i);
    const ids = [...state.tasks.values()].filter(accept).map((t) => t.id);
    return ids.length > 0 ? ids[i % ids.length]! : task(i);
  };
  const service = (i: number) => `s${i % 3}`;
  const node = (i: number) => `n${i % 4}`;
  const task = (i: number) => `t${i % 8}`;
  const termOf = (c: Component, stale: boolean) => Math.max(0, (terms.get(c) ?? 0) - (stale ? 1 : 0));
  const config = (i: number) => `cfg${i % 2}`;
  const configSpec = (i: number, labelled: number) => ({
    name: `config-${i % 2}`,
    data: Buffer.from(`setting=${i % 2}\n`).toString('base64'),
    ...(labelled % 2 ? { labels: { v: String(labelled) } } : {}),
  });
  // Some specs use a config, so that removing one in use is refused and creating a service with a missing one is too.
  const configs = (i: number) => [{ configId: config(i), configName: `config-${i % 2}`, file: { name: '/etc/app.conf', uid: '0', gid: '0', mode: 0o444 } }];
  // Some specs publish one or two host ports (a task with several), some run only on an
  // architecture (any OS) or only on an OS, as the scheduler's edges need.
  const hostPorts = (n: number) =>
    [8080, 8443].slice(0, n % 3).map((publishedPort) => ({ protocol: 'tcp' as const, targetPort: publishedPort, publishedPort, publishMode: 'host' as const }));
  const platforms = (n: number) => [[], [{ os: '', architecture: 'amd64' }], [{ os: 'linux', architecture: '' }], [{ os: 'linux', architecture: 'arm64' }]][n % 4]!;
  const spec = (i: number, replicas: number, withConfig = replicas % 4 === 3) =>
    serviceSpec(`svc-${i % 3}`, { kind: 'replicated', replicas: replicas % 5 }, {
      task: {
        container: { image: 'nginx', ...(withConfig ? { configs: configs(i) } : {}) },
        resources: { reservations: { nanoCpus: (replicas % 3) * 1e9 } },
        ...(platforms(replicas).length > 0 ? { placement: { platforms: platforms(replicas) } } : {}),
      },
      ...(hostPorts(replicas + i).length > 0 ? { endpoint: { mode: 'vip' as const, ports: hostPorts(replicas + i) } } : {}),
    });

  // Every history starts from a small cluster: a config, three services (the third uses the config), three ready nodes.
  push(b.event('ConfigCreated', { id: config(0), spec: configSpec(0, 0) }));
  for (const i of [0, 1, 2]) push(b.event('ServiceCreated', { id: service(i), spec: spec(i, 2, i === 2) }));
  for (const i of [0, 1, 2]) push(b.event('NodeRegistered', { id: node(i), role: 'worker', description: nodeDescription(node(i)) }));

  for (const [kind, a, bb, c] of steps) {
    const stale = c % 7 === 0;
    switch (kind) {
      case 0:
        push(b.event('ServiceCreated', { id: service(a), spec: spec(a, bb) }));
        break;
      case 1:
        push(
          b.event('ServiceUpdated', { id: service(a), spec: spec(a, bb) }, c % 2 ? { expect: { serviceVersions: { [service(a)]: 1 + (c % 3) } } } : {}),
        );
        break;
      case 2:
        push(b.event('ServiceRemoved', { id: service(a) }));
        break;
      case 3:
        push(b.event('NodeRegistered', { id: node(a), role: 'worker', description: nodeDescription(node(a)) }, { term: termOf('dispatcher', stale) }));
        break;
      case 4:
        push(b.event('NodeStatusChanged', { nodes: [{ id: node(a), state: NODE_STATES[bb % 4]! }] }, { term: termOf('dispatcher', stale) }));
        break;
      case 5:
        push(b.event('NodeSpecUpdated', { id: node(a), spec: { labels: {}, role: 'worker', availability: (['active', 'pause', 'drain'] as const)[bb % 3]! } }));
        break;
      case 6:
        push(
          b.event(
            'TasksCreated',
            {
              tasks: [0, 1, 2].slice(0, 1 + (c % 3)).map((k) => {
                const created = newTask(task(bb + k), service(a), spec(a, 1), { slot: 1 + k, specVersion: 1 + (c % 2), ...(c % 5 === 0 ? { nodeId: node(c) } : {}) });
                // As the orchestrator writes them, mostly: without the spec, which the service's version names.
                if (c % 7 === 0) return created;
                const { spec: _written, ...named } = created;
                return named;
              }),
            },
            { term: termOf('orchestrator', stale) },
          ),
        );
        break;
      case 7:
        push(b.event('TasksAllocated', { tasks: [{ id: taskIn(a, (t) => t.status.state === TaskState.NEW), attachments: [] }, { id: task(bb), attachments: [] }] }, { term: termOf('allocator', stale) }));
        break;
      case 8:
        push(b.event('TasksAssigned', { tasks: [{ id: taskIn(a, (t) => t.status.state === TaskState.PENDING), nodeId: node(bb), why: 'random' }] }, { term: termOf('scheduler', stale) }));
        break;
      case 9: {
        const id = taskIn(a, (t) => t.status.state >= TaskState.ASSIGNED);
        const onNode = state.tasks.get(id)?.nodeId;
        push(
          b.event(
            'TaskStatusesReported',
            { nodeId: bb % 6 === 0 || !onNode ? node(bb) : onNode, statuses: [{ id, state: TASK_STATES[c % TASK_STATES.length]!, at: b.now() }] },
            { term: termOf('dispatcher', stale) },
          ),
        );
        break;
      }
      case 10:
        push(
          b.event('TaskDesiredStatesChanged', { tasks: [{ id: taskIn(a, () => true), desiredState: [TaskState.READY, TaskState.RUNNING, TaskState.SHUTDOWN, TaskState.REMOVE][bb % 4]! }] }, {
            term: termOf('orchestrator', stale),
          }),
        );
        break;
      case 11:
        push(b.event('TasksRemoved', { tasks: [{ id: taskIn(a, (t) => t.status.state > TaskState.RUNNING), reason: 'reaped' }] }, { term: termOf('reaper', stale) }));
        break;
      case 12: {
        const component = COMPONENTS[a % COMPONENTS.length]!;
        const term = (terms.get(component) ?? 0) + (bb % 3 === 0 ? 0 : 1);
        if (term > (terms.get(component) ?? 0)) terms.set(component, term);
        push(b.event('OwnershipTaken', { component, term: Math.max(1, term) }, { by: component, term: Math.max(1, term), instance: `${component}-${term}` }));
        break;
      }
      case 13:
        out.push(POISON[a % POISON.length]!);
        break;
      case 14:
        if (out.length > 0) out.push(out[a % out.length]!);
        break;
      case 15:
        push(b.event('NetworkCreated', { id: `net${a % 3}`, spec: { name: `net-${bb % 3}`, driver: 'overlay' } }));
        break;
      case 16:
        push(b.event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }) }));
        break;
      case 18:
        push(b.event('ConfigCreated', { id: config(a), spec: configSpec(bb, c) }));
        break;
      case 19: {
        const current = state.configs.get(config(a));
        // Mostly a relabel of what is there; sometimes a change of data, which is refused.
        const spec = current && c % 3 !== 0 ? { ...current.spec, labels: { v: String(bb) } } : configSpec(bb, c);
        push(b.event('ConfigUpdated', { id: config(a), spec }, c % 2 ? { expect: { configVersions: { [config(a)]: 1 + (bb % 2) } } } : {}));
        break;
      }
      case 20:
        push(b.event('ConfigRemoved', { id: config(a) }));
        break;
      default:
        push(b.event('TasksAllocated', { tasks: [{ id: task(a), attachments: [] }] }, { term: termOf('allocator', stale) }));
    }
  }
  return out;
};

/** Random histories: lists of raw record values. */
export const histories = (maxLength = 120): fc.Arbitrary<string[]> =>
  fc.array(step, { minLength: 1, maxLength, size: 'max' }).map(historyFromSteps);
