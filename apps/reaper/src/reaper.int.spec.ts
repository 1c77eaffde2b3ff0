import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { ReaperCore, replay } from '@shoal/domain';
import { ComponentRunner } from '@shoal/runtime';
import { EventBuilder, KafkaTestTopic, appendEvents, eventually, newTask, nodeDescription, serviceSpec, keptJoinTokens } from '@shoal/testing';

/** How long the reaper gets to do each thing. */
const WITHIN_MS = 30_000;

describe('the reaper on a real broker', () => {
  let topic: KafkaTestTopic;
  beforeEach(() => (topic = new KafkaTestTopic('reaper-int')));
  afterEach(() => topic.close());

  it('trims each slot to the retention limit, removes tasks told to go once they stop, and picks up where it was after a restart', async () => {
    const log = await topic.open();
    const b = new EventBuilder();
    const append = (events: readonly ShoalEvent[]) => appendEvents(log, events);
    const spec = serviceSpec('web', { kind: 'replicated', replicas: 2 });
    /** A task of `slot` that ran on n1 and ended in `state`, then was told `desired`. */
    const ended = (id: string, slot: number, state: TaskState, desired: TaskState = TaskState.SHUTDOWN): ShoalEvent[] => [
      b.event('TasksCreated', { tasks: [newTask(id, 's1', spec, { slot })] }),
      b.event('TasksAllocated', { tasks: [{ id, attachments: [] }] }),
      b.event('TasksAssigned', { tasks: [{ id, nodeId: 'n1', why: 'test' }] }),
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id, state: TaskState.RUNNING, at: b.now() }] }),
      ...(state > TaskState.RUNNING ? [b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id, state, at: b.now() }] })] : []),
      ...(desired > TaskState.RUNNING ? [b.event('TaskDesiredStatesChanged', { tasks: [{ id, desiredState: desired }] })] : []),
    ];

    // History written before any reaper runs: slot 1 has four ended tasks and a running one, the limit is 2.
    await append([
      b.event('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 2 } }, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }) }),
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
      b.event('ServiceCreated', { id: 's1', spec }),
      ...['a1', 'a2', 'a3', 'a4'].flatMap((id) => ended(id, 1, TaskState.FAILED)),
      ...ended('a5', 1, TaskState.RUNNING, TaskState.RUNNING),
      // Scaled down: slot 2's task is told to go but has not stopped yet.
      ...ended('b1', 2, TaskState.RUNNING, TaskState.REMOVE),
    ]);

    const start = async (instance: string) => topic.start(new ComponentRunner(await topic.open(), new ReaperCore(), { cluster: 'c1', instance }));
    const first = await start('reaper-a');
    const has = (id: string) => first.view.state.tasks.has(id);
    // At start-up it looks at everything: the three oldest of slot 1 go (five tasks, limit 2, one running).
    await eventually('slot 1 is trimmed', () => !has('a1') && !has('a2') && !has('a3'), WITHIN_MS);
    expect(['a4', 'a5', 'b1'].every(has)).toBe(true);

    // The task told to go stops: it is removed, not kept as history.
    await append([b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 'b1', state: TaskState.SHUTDOWN, at: b.now() }] })]);
    await eventually('b1 is removed', () => !has('b1'), WITHIN_MS);

    // The reaper stops; more history is written; a new one trims it.
    await topic.stop(first);
    await append([...ended('a6', 1, TaskState.FAILED), ...ended('a7', 1, TaskState.FAILED)]);
    const second = await start('reaper-b');
    await eventually('slot 1 is trimmed again', () => !second.view.state.tasks.has('a4') && !second.view.state.tasks.has('a6'), WITHIN_MS);
    expect([...second.view.state.tasks.keys()].sort()).toEqual(['a5', 'a7']);

    // Checked through the log: every removal was the reaper's and every one applied; the running task was never touched.
    const { state, tally, refusals } = replay((await log.read(0)).map((r) => ({ offset: r.offset, value: r.value })));
    expect(refusals).toEqual([]);
    expect(tally.rejected + tally.partial + tally.poison).toBe(0);
    expect(state.tasks.get('a5')?.status.state).toBe(TaskState.RUNNING);
    const removals = (await log.read(0)).map((r) => JSON.parse(r.value) as ShoalEvent).filter((e) => e.type === 'TasksRemoved');
    expect(removals.every((e) => e.by.component === 'reaper')).toBe(true);
    expect(removals.flatMap((e) => (e.type === 'TasksRemoved' ? e.data.tasks.map((t) => t.id) : [])).sort()).toEqual(['a1', 'a2', 'a3', 'a4', 'a6', 'b1']);
  });
});
