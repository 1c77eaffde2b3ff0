import { DEFAULT_CLUSTER_SPEC, TaskState, encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { SchedulerCore, TASK_COST } from '@shoal/domain';
import type { EmbeddedEventLog } from '@shoal/eventlog';
import { ComponentRunner } from '@shoal/runtime';
import { EventBuilder, eventually, keptJoinTokens, newTask, nodeDescription, openEmbeddedTestLog, serviceSpec } from '@shoal/testing';

const WITHIN = { timeoutMs: 20_000, everyMs: 10 };
const NODES = 10;
/** Room for one batch's tree and 5 tasks a tick; 6 for a tick that goes on with the tree it kept. */
const BUDGET = NODES + 5 * TASK_COST;

describe('the scheduler with a backlog larger than a tick (runner and core, on the embedded log)', () => {
  let log: EmbeddedEventLog;
  let closeLog: () => Promise<void>;
  beforeEach(async () => ({ log, close: closeLog } = await openEmbeddedTestLog('shoal-scheduler-backlog-')));
  afterEach(() => closeLog());

  const append = (events: readonly ShoalEvent[]) => log.append(events.map((e) => ({ key: 'c1', value: encode(e) })));

  /** `count` PENDING tasks of a new service `name`. */
  const pendingOf = (b: EventBuilder, name: string, count: number): ShoalEvent[] => {
    const spec = serviceSpec(name, { kind: 'replicated', replicas: count });
    const tasks = Array.from({ length: count }, (_, i) => newTask(`${name}.${i + 1}`, name, spec, { slot: i + 1 }));
    return [
      b.event('ServiceCreated', { id: name, spec }),
      b.event('TasksCreated', { tasks }),
      b.event('TasksAllocated', { tasks: tasks.map((t) => ({ id: t.id, attachments: [] })) }),
    ];
  };

  it('places the backlog a budget a tick, going on without the log moving, even past ticks that proposed nothing', async () => {
    const b = new EventBuilder();
    await append([
      b.event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }) }),
      ...Array.from({ length: NODES }, (_, i) => b.event('NodeRegistered', { id: `n${i + 1}`, role: 'worker', description: nodeDescription(`n${i + 1}`) })),
      // Tasks of a service already gone wait silently (the orchestrator will stop them): the
      // first ticks propose nothing, and the queue behind them must still be reached.
      ...pendingOf(b, 'gone', 10),
      b.event('ServiceRemoved', { id: 'gone' }),
      ...pendingOf(b, 'web', 60),
    ]);
    const runner = new ComponentRunner(log, new SchedulerCore({ tickBudget: BUDGET }), { cluster: 'c1', instance: 'scheduler-a' });
    await runner.start();
    const web = () => [...runner.view.state.tasks.values()].filter((t) => t.serviceId === 'web');
    await eventually('every web task is ASSIGNED', () => web().every((t) => t.status.state === TaskState.ASSIGNED), WITHIN);
    await runner.stop();
    const assigned = (await log.read(0)).map((r) => JSON.parse(r.value) as ShoalEvent).filter((e) => e.type === 'TasksAssigned');
    expect(assigned.map((e) => (e.type === 'TasksAssigned' ? e.data.tasks.length : 0))).toEqual([5, ...Array.from({ length: 9 }, () => 6), 1]);
    const perNode = new Map<string, number>();
    for (const t of web()) perNode.set(t.nodeId as string, (perNode.get(t.nodeId as string) ?? 0) + 1);
    expect([...perNode.values()]).toEqual(Array.from({ length: NODES }, () => 6));
    expect([...runner.view.state.tasks.values()].filter((t) => t.serviceId === 'gone').every((t) => t.status.state === TaskState.PENDING)).toBe(true);
  });
});
