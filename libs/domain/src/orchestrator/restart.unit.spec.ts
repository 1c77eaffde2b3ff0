import { TaskState } from '@shoal/contracts';
import type { RestartPolicy, ServiceSpec, Task } from '@shoal/contracts';
import { evolve } from '../evolve';
import { emptyState } from '../state';
import { OrchestratorCore } from './orchestrator-core';
import { RESTARTED } from './restart-memory';
import { OLD_TASK_TIMEOUT_MS } from './replacement-start';
import { Simulation } from '@shoal/testing';

const { READY, RUNNING, COMPLETE, SHUTDOWN, FAILED, REJECTED } = TaskState;

const spec = (restartPolicy: Partial<RestartPolicy> = {}, replicas = 1): ServiceSpec => ({
  name: 'web',
  task: {
    container: { image: 'nginx:1.27' },
    restartPolicy: { condition: 'any', delayMs: 5_000, maxAttempts: 0, windowMs: 0, ...restartPolicy },
  },
  mode: { kind: 'replicated', replicas },
});

let ids = 0;
const core = () => new OrchestratorCore({ newId: () => `t${++ids}` });

/** A cluster with the service running. */
const running = (policy: Partial<RestartPolicy> = {}, replicas = 1, nodes = ['n1', 'n2']) => {
  const sim = new Simulation(core());
  for (const n of nodes) sim.addNode(n);
  sim.append('ServiceCreated', { id: 's1', spec: spec(policy, replicas) });
  sim.settle();
  return sim;
};

const replacementOf = (sim: Simulation, id: string): Task | undefined => sim.tasksOf('s1').find((t) => t.replaces === id);

describe('the restart supervisor', () => {
  it('given a running task, when it fails, then it is shut down and a replacement in its slot waits, desired READY', () => {
    const sim = running();
    const old = sim.running('s1')[0]!;
    sim.report(old.id, FAILED, { exitCode: 1, err: 'exit 1' });
    sim.decide();
    expect(sim.state.tasks.get(old.id)!.desiredState).toBe(SHUTDOWN);
    const next = replacementOf(sim, old.id)!;
    expect(next).toMatchObject({ slot: old.slot, desiredState: READY, specVersion: 1 });
    const [change] = sim.written('TaskDesiredStatesChanged').at(-1)!.data.tasks;
    expect(change!.reason).toMatch(new RegExp(`^${RESTARTED}: task ${old.id} ended: exit 1`));
  });

  it('given a replacement waiting out the restart delay, then it is started only once the delay has passed, and the core asks to be woken then', () => {
    const c = core();
    const sim = new Simulation(c);
    sim.addNode('n1');
    sim.append('ServiceCreated', { id: 's1', spec: spec({ delayMs: 10_000 }) });
    sim.settle();
    const old = sim.running('s1')[0]!;
    sim.report(old.id, FAILED);
    sim.decide();
    const next = replacementOf(sim, old.id)!;
    expect(c.wakeAt(sim.state)).toBe(Date.parse(next.createdAt) + 10_000);
    sim.advance(9_000);
    expect(sim.decide()).toEqual([]);
    sim.advance(1_000);
    expect(sim.decide()).toEqual([
      { type: 'TaskDesiredStatesChanged', data: { tasks: [{ id: next.id, desiredState: RUNNING, reason: 'restart delay elapsed' }] } },
    ]);
    expect(c.wakeAt(sim.state)).toBeUndefined();
    sim.settle();
    expect(sim.running('s1').map((t) => t.id)).toEqual([next.id]);
  });

  it('given condition on-failure, then a task that completed is not replaced, and one that failed is', () => {
    const sim = running({ condition: 'on-failure', delayMs: 0 }, 2);
    const [a, b] = sim.running('s1');
    sim.report(a!.id, COMPLETE);
    sim.report(b!.id, FAILED);
    sim.decide();
    expect(sim.state.tasks.get(a!.id)!.desiredState).toBe(SHUTDOWN);
    expect(replacementOf(sim, a!.id)).toBeUndefined();
    expect(replacementOf(sim, b!.id)).toBeDefined();
  });

  it('given condition none, then a failed task is shut down, not replaced, and its slot is not refilled by a later reconcile', () => {
    const sim = running({ condition: 'none' });
    const old = sim.running('s1')[0]!;
    sim.report(old.id, FAILED);
    sim.settle();
    expect(sim.tasksOf('s1')).toHaveLength(1);
    sim.append('ServiceUpdated', { id: 's1', spec: { ...spec({ condition: 'none' }), labels: { again: 'yes' } } });
    sim.settle();
    expect(sim.tasksOf('s1')).toHaveLength(1);
  });

  it('given condition any, then even a task that completed is replaced', () => {
    const sim = running({ delayMs: 0 });
    const old = sim.running('s1')[0]!;
    sim.report(old.id, COMPLETE);
    sim.settle();
    expect(sim.running('s1').map((t) => t.replaces)).toEqual([old.id]);
  });

  it('given max attempts 2 and no window, then the slot is restarted twice and no more', () => {
    const sim = running({ delayMs: 0, maxAttempts: 2 });
    for (let i = 0; i < 4; i++) {
      const task = sim.running('s1')[0];
      if (!task) break;
      sim.report(task.id, FAILED);
      sim.settle();
    }
    const replacements = sim.tasksOf('s1').filter((t) => t.replaces !== undefined);
    expect(replacements).toHaveLength(2);
    expect(sim.running('s1')).toHaveLength(0);
  });

  it('given max attempts 1 within a 30 s window, then a failure after the window has passed is restarted again', () => {
    const sim = running({ delayMs: 0, maxAttempts: 1, windowMs: 30_000 });
    const first = sim.running('s1')[0]!;
    sim.report(first.id, FAILED);
    sim.settle();
    const second = sim.running('s1')[0]!;
    sim.advance(5_000);
    sim.report(second.id, FAILED); // within the window: not restarted
    sim.settle();
    expect(sim.running('s1')).toHaveLength(0);

    const other = running({ delayMs: 0, maxAttempts: 1, windowMs: 30_000 });
    const a = other.running('s1')[0]!;
    other.report(a.id, FAILED);
    other.settle();
    const b = other.running('s1')[0]!;
    other.advance(60_000);
    other.report(b.id, FAILED); // the earlier restart is out of the window
    other.settle();
    expect(other.running('s1').map((t) => t.replaces)).toEqual([b.id]);
  });

  it('given a new spec version, then the restart count of a slot starts over', () => {
    const policy = { delayMs: 0, maxAttempts: 2 };
    const sim = running(policy);
    const fail = () => {
      const task = sim.running('s1')[0]!;
      sim.report(task.id, FAILED);
      sim.settle();
      return task;
    };
    fail(); // restart 1 of version 1
    sim.append('ServiceUpdated', { id: 's1', spec: { ...spec(policy), labels: { v: '2' } } });
    fail(); // restart 2 of the slot, its replacement at version 2: the count starts over at 1
    const v2 = fail(); // with two restarts of the slot already, a version-2 task is still restarted
    expect(v2.specVersion).toBe(2);
    expect(sim.running('s1').map((t) => t.replaces)).toEqual([v2.id]);
    fail(); // version 2 has had its two restarts: not restarted
    expect(sim.running('s1')).toHaveLength(0);
  });

  it('given a replacement that fails before it was ever started, then it is not restarted until its own delay has passed', () => {
    const c = core();
    const sim = new Simulation(c);
    sim.addNode('n1');
    sim.append('ServiceCreated', { id: 's1', spec: spec({ delayMs: 10_000 }) });
    sim.settle();
    const old = sim.running('s1')[0]!;
    sim.report(old.id, FAILED);
    sim.decide();
    sim.allocate();
    sim.schedule();
    const next = replacementOf(sim, old.id)!;
    sim.report(next.id, REJECTED, { err: 'image pull failed' });
    expect(sim.decide()).toEqual([]);
    sim.advance(10_000);
    sim.decide();
    expect(sim.state.tasks.get(next.id)!.desiredState).toBe(SHUTDOWN);
    const third = replacementOf(sim, next.id)!;
    expect(third.desiredState).toBe(READY);
    expect(c.wakeAt(sim.state)).toBe(Date.parse(third.createdAt) + 10_000);
  });

  it('given a replacement waiting out its delay whose node goes down, then once the delay has passed it is restarted elsewhere, not started on the down node', () => {
    const sim = running({ delayMs: 1_000 }, 1, ['n1']);
    sim.addNode('n2');
    const old = sim.running('s1')[0]!;
    sim.report(old.id, FAILED);
    sim.step();
    const next = replacementOf(sim, old.id)!;
    expect(next).toMatchObject({ nodeId: 'n1', desiredState: READY });
    // its node goes down while it waits: it is left alone until its delay is over
    sim.append('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] });
    expect(sim.decide()).toEqual([]);
    sim.advance(1_000);
    sim.decide();
    expect(sim.state.tasks.get(next.id)!.desiredState).toBe(SHUTDOWN);
    const third = replacementOf(sim, next.id)!;
    expect(third).toMatchObject({ slot: old.slot, desiredState: READY });
    // and when the node comes back, the task left there is stopped, and the slot runs its replacement
    sim.append('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'ready' }] });
    sim.settle();
    expect(sim.running('s1').map((t) => t.id)).toEqual([third.id]);
    expect(sim.state.tasks.get(next.id)!.status.state).toBe(SHUTDOWN);
  });

  it('given a task on a node being drained, then its replacement waits for it to stop (no delay), or for the old-task timeout', () => {
    const sim = running({ delayMs: 5_000 }, 1, ['n1']);
    sim.addNode('n2');
    const old = sim.running('s1')[0]!;
    sim.append('NodeSpecUpdated', { id: 'n1', spec: { labels: {}, role: 'worker', availability: 'drain' } });
    sim.decide();
    const next = replacementOf(sim, old.id)!;
    expect(sim.decide()).toEqual([]); // the old task still runs
    sim.report(old.id, SHUTDOWN);
    sim.decide();
    expect(sim.state.tasks.get(next.id)!.desiredState).toBe(RUNNING);

    const stuck = running({ delayMs: 5_000 }, 1, ['n1']);
    stuck.addNode('n2');
    const silent = stuck.running('s1')[0]!;
    stuck.append('NodeSpecUpdated', { id: 'n1', spec: { labels: {}, role: 'worker', availability: 'drain' } });
    stuck.decide();
    stuck.advance(OLD_TASK_TIMEOUT_MS - 1);
    expect(stuck.decide()).toEqual([]);
    stuck.advance(1);
    stuck.decide();
    expect(replacementOf(stuck, silent.id)!.desiredState).toBe(RUNNING);
  });

  it('given a task failure, then only that task is looked at: a slot missing for another reason waits for a service event', () => {
    const sim = running({ delayMs: 0 }, 3);
    const [a, b] = sim.running('s1');
    // Slot of b emptied behind the orchestrator's back (no service event follows).
    sim.append('TaskDesiredStatesChanged', { tasks: [{ id: b!.id, desiredState: TaskState.REMOVE }] });
    sim.report(a!.id, FAILED);
    sim.decide();
    const created = sim.written('TasksCreated').at(-1)!.data.tasks;
    expect(created.map((t) => t.replaces)).toEqual([a!.id]);
    sim.append('ServiceUpdated', { id: 's1', spec: { ...spec({ delayMs: 0 }, 3), labels: { x: 'y' } } });
    sim.decide();
    expect(sim.written('TasksCreated').at(-1)!.data.tasks.map((t) => t.slot)).toEqual([b!.slot]);
  });

  it('given an orchestrator that sees only the state (a snapshot), then the restarts still there count against max attempts', () => {
    const sim = running({ delayMs: 0, maxAttempts: 2 });
    for (let i = 0; i < 2; i++) {
      sim.report(sim.running('s1')[0]!.id, FAILED);
      sim.settle();
    }
    const last = sim.running('s1')[0]!;
    sim.takeOver(core());
    sim.report(last.id, FAILED);
    sim.settle();
    expect(sim.tasksOf('s1').some((t) => t.replaces === last.id)).toBe(false);
    expect(sim.running('s1')).toHaveLength(0);
  });

  it('given an orchestrator that sees only the state after the spec changed, then only the restarts at the newest spec version count, each once', () => {
    const policy = { delayMs: 0, maxAttempts: 3 };
    const sim = running(policy);
    // Two restarts at spec version 1, then an update to version 2 and one restart there.
    for (let i = 0; i < 2; i++) {
      sim.report(sim.running('s1')[0]!.id, FAILED);
      sim.settle();
    }
    const v2 = spec(policy);
    sim.append('ServiceUpdated', { id: 's1', spec: { ...v2, task: { ...v2.task, container: { image: 'nginx:1.28' } } } });
    sim.settle();
    const updated = sim.running('s1')[0]!;
    expect(updated.specVersion).toBe(2);
    sim.report(updated.id, FAILED);
    sim.settle();
    const slot = sim.tasksOf('s1');
    expect(slot.filter((t) => t.specVersion === 1)).toHaveLength(3);
    expect(slot.filter((t) => t.specVersion === 2)).toHaveLength(2);

    // A fresh orchestrator that sees only the state: one restart so far at version 2 (its tasks
    // after the first), none of version 1's; two more are allowed, and no third.
    sim.takeOver(core());
    const restarted: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const task = sim.running('s1')[0];
      if (!task) break;
      sim.report(task.id, FAILED);
      sim.settle();
      restarted.push(replacementOf(sim, task.id) !== undefined);
    }
    expect(restarted).toEqual([true, true, false]);
    expect(sim.running('s1')).toHaveLength(0);
  });

  it('given an orchestrator that sees only the state, then a restart it learnt from the state counts inside the window, and not once the window has passed', () => {
    const outcome = (failAfterMs: number): boolean => {
      const sim = running({ delayMs: 0, maxAttempts: 1, windowMs: 30_000 });
      const first = sim.running('s1')[0]!;
      sim.report(first.id, FAILED);
      sim.settle();
      const second = replacementOf(sim, first.id)!;
      expect(sim.state.tasks.get(second.id)!.status.state).toBe(RUNNING);
      sim.takeOver(core());
      sim.spec.clock = Date.parse(second.createdAt) + failAfterMs;
      sim.report(second.id, FAILED);
      sim.settle();
      return replacementOf(sim, second.id) !== undefined;
    };
    // The restart that made `second` is 10 s before it fails: it counts, max attempts reached.
    expect(outcome(10_000)).toBe(false);
    // 31 s after it: out of the window, the task is restarted.
    expect(outcome(31_000)).toBe(true);
  });

  it('given a slot another task already fills (a start-first update under way), when the old task fails, then it is shut down with no replacement', () => {
    const sim = running({ delayMs: 0 });
    const old = sim.running('s1')[0]!;
    sim.append('TasksCreated', {
      tasks: [{ id: 'new', serviceId: 's1', slot: old.slot, specVersion: 1, spec: spec({ delayMs: 0 }).task, desiredState: RUNNING, replaces: old.id }],
    });
    sim.allocate();
    sim.schedule();
    sim.runAgents();
    sim.report(old.id, FAILED);
    sim.decide();
    expect(sim.state.tasks.get(old.id)!.desiredState).toBe(SHUTDOWN);
    expect(sim.tasksOf('s1').filter((t) => t.replaces === old.id).map((t) => t.id)).toEqual(['new']);
    expect(sim.runnable('s1').map((t) => t.id)).toEqual(['new']);
  });

  it('given the orchestrator restarts, then the restart history and waiting replacements are rebuilt from the log', () => {
    const sim = running({ delayMs: 10_000, maxAttempts: 1 });
    const first = sim.running('s1')[0]!;
    sim.report(first.id, FAILED);
    sim.decide();
    const waiting = replacementOf(sim, first.id)!;

    // A new orchestrator replays the same log.
    const fresh = core();
    const state = emptyState();
    for (const { event } of sim.log) fresh.observe(event, evolve(state, event), state);
    fresh.reconcileAll(state);
    expect(fresh.wakeAt(state)).toBe(Date.parse(waiting.createdAt) + 10_000);
    expect(fresh.decide(state, sim.now())).toEqual([]);
    const later = new Date(sim.now().getTime() + 10_000);
    expect(fresh.decide(state, later)).toEqual([
      { type: 'TaskDesiredStatesChanged', data: { tasks: [{ id: waiting.id, desiredState: RUNNING, reason: 'restart delay elapsed' }] } },
    ]);
    expect(fresh.restarts.history.size).toBe(1);
  });
});
