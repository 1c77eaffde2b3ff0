import { TaskState } from '@shoal/contracts';
import type { RestartPolicy, ServiceMode, ServiceSpec } from '@shoal/contracts';
import { OrchestratorCore } from './orchestrator-core';
import { Simulation } from '@shoal/testing';

const { RUNNING, COMPLETE, FAILED, REMOVE } = TaskState;

const jobSpec = (mode: ServiceMode, restart: Partial<RestartPolicy> = {}, command = ['run']): ServiceSpec => ({
  name: 'job',
  task: {
    container: { image: 'busybox', command },
    restartPolicy: { condition: 'on-failure', delayMs: 0, maxAttempts: 0, windowMs: 0, ...restart },
  },
  mode,
});

const setup = (nodes = ['n1', 'n2'], completeJobs = true) => {
  let ids = 0;
  const sim = new Simulation(new OrchestratorCore({ newId: () => `t${++ids}` }), { completeJobs });
  for (const n of nodes) sim.addNode(n);
  return sim;
};

const completed = (sim: Simulation, id = 'j') => sim.tasksOf(id).filter((t) => t.status.state === COMPLETE);
/** Tasks of the job meant to run that have not completed. */
const active = (sim: Simulation, id = 'j') =>
  sim.tasksOf(id).filter((t) => t.desiredState <= RUNNING && t.status.state !== COMPLETE && t.status.state <= RUNNING);

describe('replicated jobs', () => {
  it('given 5 completions at most 2 at once, then it runs 2 at a time in slots 1 … 5, until 5 have completed, and then nothing more', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 'j', spec: jobSpec({ kind: 'replicated-job', totalCompletions: 5, maxConcurrent: 2 }) });
    sim.decide();
    expect(sim.written('TasksCreated')[0]!.data.tasks.map((t) => [t.slot, t.jobIteration])).toEqual([
      [1, 0],
      [2, 0],
    ]);
    let most = 0;
    for (let i = 0; i < 40; i++) {
      if (sim.step() === 0) break;
      most = Math.max(most, active(sim).length);
    }
    expect(most).toBe(2);
    expect(completed(sim)).toHaveLength(5);
    expect(sim.tasksOf('j')).toHaveLength(5);
    expect(completed(sim).map((t) => t.slot).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(sim.decide()).toEqual([]);
  });

  it('given a job task that fails, then it is restarted in its slot with the same iteration; a completed one never is', () => {
    const sim = setup(['n1'], false);
    sim.append('ServiceCreated', { id: 'j', spec: jobSpec({ kind: 'replicated-job', totalCompletions: 2, maxConcurrent: 2 }, { condition: 'any' }) });
    sim.settle();
    const [a, b] = sim.running('j');
    sim.report(a!.id, COMPLETE);
    sim.report(b!.id, FAILED);
    sim.settle();
    expect(sim.tasksOf('j').some((t) => t.replaces === a!.id)).toBe(false);
    const again = sim.tasksOf('j').find((t) => t.replaces === b!.id)!;
    expect(again).toMatchObject({ slot: b!.slot, jobIteration: 0 });
    expect(sim.state.tasks.get(a!.id)!.desiredState).toBe(RUNNING);
  });

  it('given a finished job, when it is updated, then a new iteration runs to completion again', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 'j', spec: jobSpec({ kind: 'replicated-job', totalCompletions: 2, maxConcurrent: 2 }) });
    sim.settle();
    expect(completed(sim)).toHaveLength(2);
    sim.append('ServiceUpdated', { id: 'j', spec: jobSpec({ kind: 'replicated-job', totalCompletions: 2, maxConcurrent: 2 }, {}, ['run', 'again']) });
    sim.settle();
    expect(completed(sim).filter((t) => t.jobIteration === 1)).toHaveLength(2);
    expect(sim.tasksOf('j')).toHaveLength(4);
  });

  it('given a job still running, when it is updated, then the old iteration’s running tasks get desired REMOVE', () => {
    const sim = setup(['n1'], false);
    sim.append('ServiceCreated', { id: 'j', spec: jobSpec({ kind: 'replicated-job', totalCompletions: 3, maxConcurrent: 3 }) });
    sim.settle();
    const old = sim.running('j');
    expect(old).toHaveLength(3);
    sim.append('ServiceUpdated', { id: 'j', spec: jobSpec({ kind: 'replicated-job', totalCompletions: 3, maxConcurrent: 3 }, {}, ['v2']) });
    sim.decide();
    for (const t of old) expect(sim.state.tasks.get(t.id)!.desiredState).toBe(REMOVE);
    expect(sim.written('TasksCreated').at(-1)!.data.tasks.every((t) => t.jobIteration === 1 && t.specVersion === 2)).toBe(true);
  });
});

describe('global jobs', () => {
  it('given ready nodes, then one task runs to completion on each, and is not run again', () => {
    const sim = setup(['n1', 'n2', 'n3']);
    sim.append('ServiceCreated', { id: 'j', spec: jobSpec({ kind: 'global-job' }, { condition: 'any' }) });
    sim.settle();
    expect(completed(sim).map((t) => t.nodeId).sort()).toEqual(['n1', 'n2', 'n3']);
    expect(sim.tasksOf('j')).toHaveLength(3);
    expect(sim.decide()).toEqual([]);
  });

  it('given a finished global job, when a node joins, then it runs there too; when updated, it runs everywhere again', () => {
    const sim = setup(['n1']);
    sim.append('ServiceCreated', { id: 'j', spec: jobSpec({ kind: 'global-job' }) });
    sim.settle();
    sim.addNode('n2');
    sim.settle();
    expect(completed(sim).map((t) => t.nodeId).sort()).toEqual(['n1', 'n2']);
    sim.append('ServiceUpdated', { id: 'j', spec: jobSpec({ kind: 'global-job' }, {}, ['v2']) });
    sim.settle();
    expect(completed(sim).filter((t) => t.jobIteration === 1).map((t) => t.nodeId).sort()).toEqual(['n1', 'n2']);
  });

  it('given a global job running on a node that is drained, then its unfinished task there is shut down and not run elsewhere', () => {
    const sim = setup(['n1', 'n2'], false);
    sim.append('ServiceCreated', { id: 'j', spec: jobSpec({ kind: 'global-job' }) });
    sim.settle();
    const onN1 = sim.running('j').find((t) => t.nodeId === 'n1')!;
    sim.append('NodeSpecUpdated', { id: 'n1', spec: { labels: {}, role: 'worker', availability: 'drain' } });
    sim.settle();
    expect(sim.state.tasks.get(onN1.id)!.desiredState).toBe(TaskState.SHUTDOWN);
    expect(sim.runnable('j').map((t) => t.nodeId)).toEqual(['n2']);
  });

  it('given a global job task that fails, then it is restarted on its node', () => {
    const sim = setup(['n1', 'n2'], false);
    sim.append('ServiceCreated', { id: 'j', spec: jobSpec({ kind: 'global-job' }) });
    sim.settle();
    const onN1 = sim.running('j').find((t) => t.nodeId === 'n1')!;
    sim.report(onN1.id, FAILED);
    sim.settle();
    expect(sim.running('j').find((t) => t.replaces === onN1.id)?.nodeId).toBe('n1');
  });
});
