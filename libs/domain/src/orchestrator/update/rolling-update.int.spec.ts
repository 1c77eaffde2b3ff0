/**
 * A service's whole life on a real broker, with the orchestrator (update supervisor wired
 * in) and the reaper as component runners, and the allocator, scheduler and agents played
 * by the test: created, scaled, updated to a version that fails and rolls back, updated
 * again with the orchestrator killed mid-update (a new one resumes), then removed.
 */
import { randomUUID } from 'node:crypto';
import { TaskState, encode } from '@shoal/contracts';
import type { EventDataMap, EventType, ServiceSpec, ShoalEvent, Task } from '@shoal/contracts';
import { KafkaEventLog } from '@shoal/eventlog';
import { ComponentRunner } from '@shoal/runtime';
import { EventBuilder, nodeDescription, serviceSpec, keptJoinTokens } from '@shoal/testing';
import { OrchestratorCore } from '../orchestrator-core';
import { ReaperCore } from '../../reaper/reaper-core';
import { superviseUpdate } from './supervise-update';

const brokers = (process.env.KAFKA_BROKERS ?? '')
  .split(',')
  .map((broker) => broker.trim())
  .filter(Boolean);
if (brokers.length === 0) throw new Error('KAFKA_BROKERS is not set: this integration test needs a real broker (jest finds or starts one).');

const until = async (what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

const web = (image: string, replicas: number, delayMs = 0): ServiceSpec =>
  serviceSpec('web', { kind: 'replicated', replicas }, {
    task: { container: { image }, restartPolicy: { condition: 'any', delayMs: 200, maxAttempts: 0, windowMs: 0 } },
    update: { parallelism: 1, delayMs, failureAction: 'rollback', monitorMs: 300, maxFailureRatio: 0, order: 'stop-first' },
    rollback: { parallelism: 0, delayMs: 0, failureAction: 'pause', monitorMs: 300, maxFailureRatio: 0, order: 'stop-first' },
  });

describe('a rolling update on a real broker', () => {
  const opened: KafkaEventLog[] = [];
  const runners: ComponentRunner[] = [];
  let agents: ReturnType<typeof setInterval> | undefined;
  afterEach(async () => {
    if (agents) clearInterval(agents);
    for (const runner of runners.splice(0)) await runner.stop();
    await Promise.all(opened.splice(0).map((log) => log.close()));
  });

  it('scales without an update, rolls a failing version back, resumes after the orchestrator is killed, and removes the service', async () => {
    const topic = `shoal-test-${randomUUID()}.events`;
    const open = async () => {
      const log = await KafkaEventLog.open({ brokers, topic, clientId: 'rolling-update-int' });
      opened.push(log);
      return log;
    };
    const log = await open();
    const b = new EventBuilder();
    const append = async <K extends EventType>(type: K, data: EventDataMap[K]): Promise<void> => {
      await log.append([{ key: 'c1', value: encode(b.event(type, data, { at: new Date().toISOString() })) }]);
    };
    await append('ClusterInitialized', {
      spec: { name: 'default', orchestration: { taskHistoryRetentionLimit: 2 }, dispatcher: { heartbeatPeriodMs: 5_000 }, nodeDownPeriodMs: 86_400_000 },
      tokens: keptJoinTokens({ worker: 'w', manager: 'm' }),
    });
    for (const id of ['n1', 'n2', 'n3']) await append('NodeRegistered', { id, role: 'worker', description: nodeDescription(id) });

    let ids = 0;
    const orchestrator = async (instance: string) => {
      const runner = new ComponentRunner(await open(), new OrchestratorCore({ newId: () => `${instance}-${++ids}`, superviseUpdate }), { cluster: 'c1', instance });
      runners.push(runner);
      await runner.start();
      return runner;
    };
    let current = await orchestrator('orchestrator-a');
    const reaper = new ComponentRunner(await open(), new ReaperCore(), { cluster: 'c1', instance: 'reaper-a' });
    runners.push(reaper);
    await reaper.start();

    // Allocator, scheduler and agents: each pass moves every task one stage; `nginx:bad` fails as it starts.
    const done = new Set<string>();
    const once = (key: string): boolean => !done.has(key) && done.add(key) !== undefined;
    let busy = false;
    agents = setInterval(() => {
      if (busy) return;
      busy = true;
      const state = current.view.state;
      const events: ShoalEvent[] = [];
      let node = 0;
      for (const task of state.tasks.values()) {
        const s = task.status.state;
        if (s === TaskState.NEW && task.desiredState <= TaskState.RUNNING && once(`${task.id}:alloc`)) {
          events.push(b.event('TasksAllocated', { tasks: [{ id: task.id, attachments: [] }] }, { at: new Date().toISOString() }));
        } else if (s === TaskState.PENDING && task.desiredState <= TaskState.RUNNING && once(`${task.id}:assign`)) {
          events.push(b.event('TasksAssigned', { tasks: [{ id: task.id, nodeId: `n${(node++ % 3) + 1}`, why: 'test' }] }, { at: new Date().toISOString() }));
        } else if (s >= TaskState.ASSIGNED && s < TaskState.RUNNING && task.desiredState === TaskState.RUNNING && once(`${task.id}:run`)) {
          const state = task.spec.container.image === 'nginx:bad' ? TaskState.FAILED : TaskState.RUNNING;
          events.push(b.event('TaskStatusesReported', { nodeId: task.nodeId!, statuses: [{ id: task.id, state, at: new Date().toISOString() }] }, { at: new Date().toISOString() }));
        } else if (s >= TaskState.ASSIGNED && s <= TaskState.RUNNING && task.desiredState > TaskState.RUNNING && once(`${task.id}:stop`)) {
          events.push(b.event('TaskStatusesReported', { nodeId: task.nodeId!, statuses: [{ id: task.id, state: TaskState.SHUTDOWN, at: new Date().toISOString() }] }, { at: new Date().toISOString() }));
        }
      }
      void (events.length > 0 ? log.append(events.map((e) => ({ key: 'c1', value: encode(e) }))) : Promise.resolve()).finally(() => {
        busy = false;
      });
    }, 30);

    const tasks = (): Task[] => [...current.view.state.tasks.values()];
    const running = (image?: string) =>
      tasks().filter((t) => t.desiredState === TaskState.RUNNING && t.status.state === TaskState.RUNNING && (!image || t.spec.container.image === image));
    const status = () => current.view.state.services.get('s1')?.updateStatus;
    const records = async (): Promise<ShoalEvent[]> => (await log.read(0)).map((r) => JSON.parse(r.value) as ShoalEvent);

    // Created, then scaled: no rolling update for a scale change.
    await append('ServiceCreated', { id: 's1', spec: web('nginx:1', 3) });
    await until('3 tasks run', () => running('nginx:1').length === 3);
    await append('ServiceUpdated', { id: 's1', spec: web('nginx:1', 4) });
    await until('4 tasks run', () => running('nginx:1').length === 4);
    expect((await records()).filter((e) => e.type === 'ServiceUpdateStatusChanged')).toEqual([]);

    // A version that fails: the first new task fails, the orchestrator rolls the service back.
    await append('ServiceUpdated', { id: 's1', spec: web('nginx:bad', 4) });
    await until('the rollback completes', () => status()?.state === 'rollback_completed');
    await until('4 tasks of the old version run', () => running('nginx:1').length === 4);
    expect(current.view.state.services.get('s1')?.spec.task.container.image).toBe('nginx:1');
    const rollback = (await records()).find((e) => e.type === 'ServiceUpdated' && e.by.component === 'orchestrator');
    expect(rollback).toMatchObject({ data: { rollback: true, spec: { task: { container: { image: 'nginx:1' } } } } });

    // A good version with a delay between slots; the orchestrator dies after the first slot.
    await append('ServiceUpdated', { id: 's1', spec: web('nginx:2', 4, 1_500) });
    await until('the first slot runs nginx:2', () => running('nginx:2').length === 1);
    await current.stop();
    runners.splice(runners.indexOf(current), 1);
    current = await orchestrator('orchestrator-b');
    await until('the update completes', () => status()?.state === 'completed');
    await until('4 tasks of nginx:2 run', () => running('nginx:2').length === 4);

    const log2 = await records();
    const since = log2.findIndex((e) => e.type === 'ServiceUpdated' && e.data.spec.task.container.image === 'nginx:2');
    const after = log2.slice(since);
    // One update, resumed and not started over: one "updating", each slot replaced once, the rest by the new orchestrator.
    expect(after.filter((e) => e.type === 'ServiceUpdateStatusChanged' && e.data.status?.state === 'updating')).toHaveLength(1);
    const created = after.flatMap((e) => (e.type === 'TasksCreated' ? e.data.tasks.map((t) => ({ slot: t.slot, by: e.by.instance })) : []));
    expect(created.map((t) => t.slot).sort()).toEqual([1, 2, 3, 4]);
    expect(created.filter((t) => t.by === 'orchestrator-b').length).toBeGreaterThanOrEqual(1);

    // Removed: every task is told to go, stops, and the reaper removes it.
    await append('ServiceRemoved', { id: 's1' });
    await until('every task of s1 is reaped', () => [...reaper.view.state.tasks.values()].every((t) => t.serviceId !== 's1'));
    const final = await records();
    expect(final.some((e) => e.type === 'TasksRemoved' && e.by.component === 'reaper')).toBe(true);
  });
});
