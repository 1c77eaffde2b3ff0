import { TaskState } from '@shoal/contracts';
import type { ServiceSpec, ShoalEvent, Task, UpdateConfig } from '@shoal/contracts';
import { OrchestratorCore } from '@shoal/domain';
import { ComponentRunner, newObjectId } from '@shoal/runtime';
import { EventBuilder, KafkaTestTopic, appendEvents, clusterInit, eventually, nodeDescription, simulatedAgentReports, simulatedAllocations, simulatedAssignments } from '@shoal/testing';

const update: UpdateConfig = { parallelism: 1, delayMs: 700, failureAction: 'rollback', monitorMs: 500, maxFailureRatio: 0, order: 'stop-first' };
const spec = (image: string): ServiceSpec => ({
  name: 'web',
  task: { container: { image }, restartPolicy: { condition: 'any', delayMs: 300, maxAttempts: 0, windowMs: 0 } },
  mode: { kind: 'replicated', replicas: 3 },
  update,
  rollback: { ...update, delayMs: 0, failureAction: 'pause' },
});

describe('rolling updates through the orchestrator on a real broker', () => {
  let topic: KafkaTestTopic;
  let playing = false;
  beforeEach(() => (topic = new KafkaTestTopic('orchestrator-update-int')));
  afterEach(async () => {
    playing = false;
    await topic.close();
  });

  it('updates slot by slot, resumes after a failover mid-update, rolls a failing version back, and removes the service', async () => {
    const log = await topic.open();
    const b = new EventBuilder();
    const append = (events: readonly ShoalEvent[]) => appendEvents(log, events);
    await append([
      clusterInit(b),
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
      b.event('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('n2') }),
      b.event('ServiceCreated', { id: 's1', spec: spec('web:1') }),
    ]);

    const start = async (instance: string) =>
      topic.start(new ComponentRunner(await topic.open(), new OrchestratorCore({ newId: newObjectId }), { cluster: 'c1', instance }));
    let current = await start('orchestrator-a');

    // The allocator, scheduler and agents, played simply from the active orchestrator's view.
    playing = true;
    const players = (async () => {
      while (playing) {
        const view = current.view;
        const state = view.state;
        const at = new Date().toISOString();
        const events: ShoalEvent[] = [];
        const allocations = simulatedAllocations(state);
        if (allocations.length > 0) events.push(b.event('TasksAllocated', { tasks: allocations }, { at }));
        const assignments = simulatedAssignments(state);
        if (assignments.length > 0) events.push(b.event('TasksAssigned', { tasks: assignments }, { at }));
        const reports = simulatedAgentReports(state, at, { fails: (t) => t.spec.container.image === 'web:broken' });
        for (const [nodeId, statuses] of reports) events.push(b.event('TaskStatusesReported', { nodeId, statuses }, { at }));
        if (events.length > 0) {
          const { last } = await append(events);
          await view.waitFor(last + 1);
        } else await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    const tasks = (): Task[] => [...current.view.state.tasks.values()];
    const running = () => tasks().filter((t) => t.status.state === TaskState.RUNNING && t.desiredState === TaskState.RUNNING);
    const images = () => running().map((t) => t.spec.container.image).sort();
    const status = () => current.view.state.services.get('s1')?.updateStatus?.state;
    const explain = () => ({
      status: current.view.state.services.get('s1')?.updateStatus,
      version: current.view.state.services.get('s1')?.version,
      runner: current.state,
      tasks: tasks().map((t) => `${t.id.slice(0, 6)} slot ${t.slot} v${t.specVersion} ${t.spec.container.image} desired ${t.desiredState} state ${t.status.state}`),
    });
    await eventually('three tasks run', () => running().length === 3, { explain });

    // A rolling update to web:2; the orchestrator is stopped after the first slot and another one takes over.
    await append([b.event('ServiceUpdated', { id: 's1', spec: spec('web:2') })]);
    await eventually('a web:2 task runs', () => running().some((t) => t.spec.container.image === 'web:2'), { explain });
    expect(images()).not.toEqual(['web:2', 'web:2', 'web:2']);
    const first = current;
    current = await start('orchestrator-b');
    await topic.stop(first);
    await eventually('the update completes', () => status() === 'completed' && running().length === 3, { explain });
    expect(images()).toEqual(['web:2', 'web:2', 'web:2']);

    // A version that fails as it starts: the update rolls back to web:2.
    await append([b.event('ServiceUpdated', { id: 's1', spec: spec('web:broken') })]);
    await eventually('the rollback completes', () => status() === 'rollback_completed' && running().length === 3 && images().every((i) => i === 'web:2'), { explain });

    // Removed: every task gets desired REMOVE, and those that reached a node are shut down.
    await append([b.event('ServiceRemoved', { id: 's1' })]);
    const stopped = (t: Task) => t.status.state > TaskState.RUNNING || t.status.state < TaskState.ASSIGNED;
    await eventually('every task is removed', () => tasks().every((t) => t.desiredState === TaskState.REMOVE && stopped(t)), { explain });

    playing = false;
    await players;
    const records = (await log.read(0)).map((r) => JSON.parse(r.value) as ShoalEvent);
    const byOrchestrator = records.filter((e) => e.by.component === 'orchestrator');
    expect(byOrchestrator.some((e) => e.by.instance === 'orchestrator-b' && e.type === 'ServiceUpdateStatusChanged')).toBe(true);
    expect(byOrchestrator.some((e) => e.type === 'ServiceUpdated' && e.data.rollback === true)).toBe(true);
  });
});
