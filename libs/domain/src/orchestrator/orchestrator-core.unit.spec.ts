import { TaskState } from '@shoal/contracts';
import type { ServiceSpec } from '@shoal/contracts';
import type { Proposal } from '../component-core';
import { OrchestratorCore } from './orchestrator-core';
import { Simulation } from '@shoal/testing';
import type { UpdateSupervisor } from './update-seam';

const { RUNNING, SHUTDOWN, REMOVE, FAILED, READY } = TaskState;

const spec = (name: string, replicas: number, delayMs = 0): ServiceSpec => ({
  name,
  task: { container: { image: 'nginx' }, restartPolicy: { condition: 'any', delayMs, maxAttempts: 0, windowMs: 0 } },
  mode: { kind: 'replicated', replicas },
});
const global: ServiceSpec = { ...spec('agent', 0), mode: { kind: 'global' } };

const counter = () => {
  let ids = 0;
  return () => `t${++ids}`;
};

describe('start-up reconciliation (CheckTasks)', () => {
  /**
   * A cluster that ran, then changed while no orchestrator watched: the new one sees only
   * the state (as if restored from a snapshot) and must put everything right.
   */
  const changedWhileAway = () => {
    const sim = new Simulation(new OrchestratorCore({ newId: counter() }));
    for (const n of ['n1', 'n2', 'n3']) sim.addNode(n);
    sim.append('ServiceCreated', { id: 'web', spec: spec('web', 3, 1_000) });
    sim.append('ServiceCreated', { id: 'gone', spec: spec('gone', 2) });
    sim.append('ServiceCreated', { id: 'agent', spec: global });
    sim.settle();
    return sim;
  };

  const freshCore = (sim: Simulation) => {
    let n = 0;
    const fresh = new OrchestratorCore({ newId: () => `fresh${++n}` });
    fresh.reconcileAll(sim.state);
    return fresh;
  };

  it('removes the tasks of deleted services, restarts what ended or sits on a down or deleted node, and shuts down global tasks there', () => {
    const sim = changedWhileAway();
    const web = sim.running('web');
    const failed = web[0]!;
    sim.report(failed.id, FAILED);
    sim.append('ServiceRemoved', { id: 'gone' });
    sim.append('NodeStatusChanged', { nodes: [{ id: 'n3', state: 'down' }] });
    const onN3 = sim.runnable('web').filter((t) => t.nodeId === 'n3' && t.id !== failed.id);
    const agentOnN3 = sim.runnable('agent').find((t) => t.nodeId === 'n3')!;

    const core = freshCore(sim);
    const proposals = core.decide(sim.state, sim.now());
    expect(proposals.map((p) => p.type)).toEqual(['TaskDesiredStatesChanged', 'TasksCreated']);
    const changes = new Map((proposals[0]!.data as { tasks: { id: string; desiredState: number }[] }).tasks.map((t) => [t.id, t.desiredState]));
    for (const t of sim.tasksOf('gone')) expect(changes.get(t.id)).toBe(REMOVE);
    expect(changes.get(failed.id)).toBe(SHUTDOWN);
    for (const t of onN3) expect(changes.get(t.id)).toBe(SHUTDOWN);
    expect(changes.get(agentOnN3.id)).toBe(SHUTDOWN);
    const created = (proposals[1] as Extract<Proposal, { type: 'TasksCreated' }>).data.tasks;
    const replaced = new Set([failed.id, ...onN3.map((t) => t.id)]);
    expect(created.filter((t) => t.serviceId === 'web').map((t) => t.replaces).sort()).toEqual([...replaced].sort());
    expect(created.filter((t) => t.serviceId === 'agent')).toEqual([]);
  });

  it('creates what a service is missing', () => {
    const sim = changedWhileAway();
    sim.append('ServiceUpdated', { id: 'web', spec: spec('web', 5, 1_000) });
    sim.addNode('n4');
    const core = freshCore(sim);
    const created = core
      .decide(sim.state, sim.now())
      .flatMap((p) => (p.type === 'TasksCreated' ? p.data.tasks : []));
    expect(created.filter((t) => t.serviceId === 'web').map((t) => t.slot)).toEqual([4, 5]);
    expect(created.filter((t) => t.serviceId === 'agent').map((t) => t.nodeId)).toEqual(['n4']);
  });

  it('starts a replacement that was waiting out its restart delay once the delay has passed, from the state alone', () => {
    const sim = changedWhileAway();
    const old = sim.running('web')[0]!;
    sim.report(old.id, FAILED);
    sim.decide();
    const waiting = sim.tasksOf('web').find((t) => t.replaces === old.id)!;
    expect(waiting.desiredState).toBe(READY);
    const core = new OrchestratorCore({ newId: counter() });
    core.reconcileAll(sim.state);
    expect(core.decide(sim.state, sim.now())).toEqual([]);
    expect(core.decide(sim.state, new Date(sim.now().getTime() + 1_000))).toEqual([
      { type: 'TaskDesiredStatesChanged', data: { tasks: [{ id: waiting.id, desiredState: RUNNING, reason: 'restart delay elapsed' }] } },
    ]);
  });

  it('proposes nothing for a cluster that is already right', () => {
    const sim = changedWhileAway();
    expect(freshCore(sim).decide(sim.state, sim.now())).toEqual([]);
  });
});

describe('the orchestrator core', () => {
  it('batches one decision into one TaskDesiredStatesChanged and one TasksCreated, changes first', () => {
    const sim = new Simulation(new OrchestratorCore({ newId: counter() }));
    sim.addNode('n1');
    for (const name of ['a', 'b', 'c']) sim.append('ServiceCreated', { id: name, spec: spec(name, 3) });
    sim.settle();
    sim.report(sim.running('a')[0]!.id, FAILED);
    sim.append('ServiceUpdated', { id: 'b', spec: spec('b', 1) });
    sim.append('ServiceUpdated', { id: 'c', spec: spec('c', 6) });
    const proposals = sim.decide();
    expect(proposals.map((p) => p.type)).toEqual(['TaskDesiredStatesChanged', 'TasksCreated']);
    const [changes, created] = proposals as [Extract<Proposal, { type: 'TaskDesiredStatesChanged' }>, Extract<Proposal, { type: 'TasksCreated' }>];
    expect(changes.data.tasks).toHaveLength(3); // a's failed task, b's two surplus
    expect(created.data.tasks).toHaveLength(4); // a's replacement, c's three new
  });

  it('writes new tasks without the service spec they run, which the state then gives them', () => {
    const sim = new Simulation(new OrchestratorCore({ newId: counter() }));
    sim.addNode('n1');
    sim.append('ServiceCreated', { id: 'web', spec: spec('web', 3) });
    const created = sim.decide()[0] as Extract<Proposal, { type: 'TasksCreated' }>;
    expect(created.data.tasks).toHaveLength(3);
    for (const task of created.data.tasks) {
      expect(task).toMatchObject({ serviceId: 'web', specVersion: 1 });
      expect(task).not.toHaveProperty('spec');
      expect(sim.state.tasks.get(task.id)?.spec).toEqual(spec('web', 3).task);
    }
  });

  it('leaves the rest for the next decision past the plan size limit', () => {
    const sim = new Simulation(new OrchestratorCore({ newId: counter(), maxPlanSize: 10 }));
    sim.addNode('n1');
    for (const name of ['a', 'b', 'c']) sim.append('ServiceCreated', { id: name, spec: spec(name, 8) });
    expect((sim.decide()[0] as Extract<Proposal, { type: 'TasksCreated' }>).data.tasks).toHaveLength(16);
    expect((sim.decide()[0] as Extract<Proposal, { type: 'TasksCreated' }>).data.tasks).toHaveLength(8);
    expect(sim.decide()).toEqual([]);
  });

  it('leaves ended tasks past the plan size limit for the next decision too', () => {
    const sim = new Simulation(new OrchestratorCore({ newId: counter(), maxPlanSize: 4 }));
    sim.addNode('n1');
    sim.append('ServiceCreated', { id: 'a', spec: spec('a', 4) });
    sim.settle();
    for (const task of sim.running('a')) sim.report(task.id, FAILED);
    const shutDown = () => sim.written('TaskDesiredStatesChanged').at(-1)!.data.tasks.filter((t) => t.desiredState === SHUTDOWN).length;
    sim.decide();
    expect(shutDown()).toBe(2); // two shutdowns and two replacements make four
    sim.decide();
    expect(shutDown()).toBe(1); // the first two replacements start, and one more restart
    sim.decide();
    expect(shutDown()).toBe(1);
    sim.settle();
    expect(sim.running('a')).toHaveLength(4);
  });

  it('copes with 100 services of 1,000 replicas, and a task failure then touches only that task', () => {
    const sim = new Simulation(new OrchestratorCore({ newId: counter(), maxPlanSize: 20_000 }));
    sim.addNode('n1');
    for (let i = 0; i < 100; i++) sim.append('ServiceCreated', { id: `s${i}`, spec: spec(`s${i}`, 1_000) });
    let decisions = 0;
    while (sim.decide().length > 0) decisions++;
    expect(decisions).toBe(5);
    expect(sim.state.tasks.size).toBe(100_000);
    const task = sim.state.tasks.get('t54321')!;
    sim.allocate();
    sim.schedule();
    sim.report(task.id, FAILED);
    const proposals = sim.decide();
    expect(proposals).toHaveLength(2);
    expect((proposals[0] as Extract<Proposal, { type: 'TaskDesiredStatesChanged' }>).data.tasks.map((t) => t.id)).toEqual([task.id]);
    expect((proposals[1] as Extract<Proposal, { type: 'TasksCreated' }>).data.tasks.map((t) => [t.slot, t.desiredState])).toEqual([[task.slot, READY]]);
  });

  describe('the update supervisor seam', () => {
    const recording = (wakeAt?: number) => {
      const calls: string[] = [];
      const supervise: UpdateSupervisor = (_state, serviceId) => {
        calls.push(serviceId);
        return { proposals: [], ...(wakeAt === undefined ? {} : { wakeAt }) };
      };
      return { calls, supervise };
    };

    it('is called for a changed service once this decision’s own changes to it have applied, and not for agents’ reports alone', () => {
      const { calls, supervise } = recording();
      const sim = new Simulation(new OrchestratorCore({ newId: counter(), superviseUpdate: supervise }));
      sim.addNode('n1');
      sim.append('ServiceCreated', { id: 'a', spec: spec('a', 1) });
      sim.append('ServiceCreated', { id: 'b', spec: spec('b', 0) });
      sim.decide();
      expect(calls).toEqual(['b']); // a had tasks created in this decision
      calls.length = 0;
      sim.decide();
      expect(calls).toEqual(['a']);
      sim.settle();
      calls.length = 0;
      // A failure: the restart changes a's tasks, so the supervisor looks once they have applied.
      sim.report(sim.running('a')[0]!.id, TaskState.FAILED);
      sim.decide();
      expect(calls).toEqual([]);
      sim.decide();
      expect(calls).toEqual(['a']);
      // Agents' reports alone do not call it.
      calls.length = 0;
      sim.allocate();
      sim.schedule();
      expect(sim.runAgents()).toBeGreaterThan(0);
      sim.decide();
      expect(calls).toEqual([]);
    });

    it('merges the update supervisor’s proposals after the plan, and its wake-up time', () => {
      const statusChange: Proposal = { type: 'ServiceUpdateStatusChanged', data: { id: 'a', status: { state: 'updating' } } };
      const inAMinute = Date.parse('2026-01-01T00:01:00.000Z');
      const core = new OrchestratorCore({ newId: counter(), superviseUpdate: () => ({ proposals: [statusChange], wakeAt: inAMinute }) });
      const sim = new Simulation(core, { start: Date.parse('2026-01-01T00:00:00.000Z') });
      sim.append('ServiceCreated', { id: 'a', spec: spec('a', 0) });
      expect(sim.decide()).toEqual([statusChange]);
      expect(core.wakeAt(sim.state)).toBe(inAMinute);
      expect(sim.state.services.get('a')!.updateStatus?.state).toBe('updating');
      // While the update is under way it is asked every time.
      expect(sim.decide()).toEqual([statusChange]);
    });

    it('never asks the runner to wake at a time already past', () => {
      const core = new OrchestratorCore({ newId: counter(), superviseUpdate: () => ({ proposals: [], wakeAt: 0 }) });
      const sim = new Simulation(core);
      sim.append('ServiceCreated', { id: 'a', spec: spec('a', 0) });
      sim.decide();
      expect(core.wakeAt(sim.state)).toBe(sim.now().getTime() + 1_000);
    });
  });

  it('never proposes a desired state that does not move forward', () => {
    const sim = new Simulation(new OrchestratorCore({ newId: counter() }));
    sim.addNode('n1');
    sim.append('ServiceCreated', { id: 'a', spec: spec('a', 2) });
    sim.settle();
    sim.append('ServiceRemoved', { id: 'a' });
    sim.settle();
    const refused = sim.log.filter((e) => e.event.by.component === 'orchestrator' && e.verdict.status !== 'applied');
    expect(refused).toEqual([]);
    expect(sim.tasksOf('a').every((t) => t.desiredState === REMOVE && t.status.state > RUNNING)).toBe(true);
  });
});
