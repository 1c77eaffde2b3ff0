import { randomUUID } from 'node:crypto';
import { TaskState, encode } from '@shoal/contracts';
import type { ServiceSpec, ShoalEvent, Task, UpdateConfig } from '@shoal/contracts';
import { OrchestratorCore, simulatedAgentReports, simulatedAllocations, simulatedAssignments } from '@shoal/domain';
import { KafkaEventLog } from '@shoal/eventlog';
import { ComponentRunner } from '@shoal/runtime';
import { EventBuilder, clusterInit, nodeDescription } from '@shoal/testing';
import { newTaskId } from './orchestrator.module';

const brokers = (process.env.KAFKA_BROKERS ?? '')
  .split(',')
  .map((broker) => broker.trim())
  .filter(Boolean);
if (brokers.length === 0) throw new Error('KAFKA_BROKERS is not set: the orchestrator integration test needs a real broker (jest finds or starts one).');

const until = async (check: () => boolean, what: string, explain: () => unknown = () => '', timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}: ${JSON.stringify(explain())}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const update: UpdateConfig = { parallelism: 1, delayMs: 700, failureAction: 'rollback', monitorMs: 500, maxFailureRatio: 0, order: 'stop-first' };
const spec = (image: string): ServiceSpec => ({
  name: 'web',
  task: { container: { image }, restartPolicy: { condition: 'any', delayMs: 300, maxAttempts: 0, windowMs: 0 } },
  mode: { kind: 'replicated', replicas: 3 },
  update,
  rollback: { ...update, delayMs: 0, failureAction: 'pause' },
});

describe('rolling updates through the orchestrator on a real broker', () => {
  const opened: KafkaEventLog[] = [];
  const runners: ComponentRunner[] = [];
  let playing = false;
  afterEach(async () => {
    playing = false;
    for (const runner of runners.splice(0)) await runner.stop();
    await Promise.all(opened.splice(0).map((log) => log.close()));
  });

  it('updates slot by slot, resumes after a failover mid-update, rolls a failing version back, and removes the service', async () => {
    const topic = `shoal-test-${randomUUID()}.events`;
    const open = async () => {
      const log = await KafkaEventLog.open({ brokers, topic, clientId: 'orchestrator-update-int' });
      opened.push(log);
      return log;
    };
    const log = await open();
    const b = new EventBuilder();
    const append = (events: readonly ShoalEvent[]) => log.append(events.map((e) => ({ key: 'c1', value: encode(e) })));
    await append([
      clusterInit(b),
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
      b.event('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('n2') }),
      b.event('ServiceCreated', { id: 's1', spec: spec('web:1') }),
    ]);

    const start = async (instance: string) => {
      const runner = new ComponentRunner(await open(), new OrchestratorCore({ newId: newTaskId }), { cluster: 'c1', instance });
      runners.push(runner);
      await runner.start();
      return runner;
    };
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
    await until(() => running().length === 3, 'three tasks run', explain);

    // A rolling update to web:2; the orchestrator is stopped after the first slot and another one takes over.
    await append([b.event('ServiceUpdated', { id: 's1', spec: spec('web:2') })]);
    await until(() => running().some((t) => t.spec.container.image === 'web:2'), 'a web:2 task runs', explain);
    expect(images()).not.toEqual(['web:2', 'web:2', 'web:2']);
    const first = current;
    current = await start('orchestrator-b');
    await first.stop();
    runners.splice(runners.indexOf(first), 1);
    await until(() => status() === 'completed' && running().length === 3, 'the update completes', explain);
    expect(images()).toEqual(['web:2', 'web:2', 'web:2']);

    // A version that fails as it starts: the update rolls back to web:2.
    await append([b.event('ServiceUpdated', { id: 's1', spec: spec('web:broken') })]);
    await until(() => status() === 'rollback_completed' && running().length === 3 && images().every((i) => i === 'web:2'), 'the rollback completes', explain);

    // Removed: every task gets desired REMOVE, and those that reached a node are shut down.
    await append([b.event('ServiceRemoved', { id: 's1' })]);
    const stopped = (t: Task) => t.status.state > TaskState.RUNNING || t.status.state < TaskState.ASSIGNED;
    await until(() => tasks().every((t) => t.desiredState === TaskState.REMOVE && stopped(t)), 'every task is removed', explain);

    playing = false;
    await players;
    const records = (await log.read(0)).map((r) => JSON.parse(r.value) as ShoalEvent);
    const byOrchestrator = records.filter((e) => e.by.component === 'orchestrator');
    expect(byOrchestrator.some((e) => e.by.instance === 'orchestrator-b' && e.type === 'ServiceUpdateStatusChanged')).toBe(true);
    expect(byOrchestrator.some((e) => e.type === 'ServiceUpdated' && e.data.rollback === true)).toBe(true);
  });
});
