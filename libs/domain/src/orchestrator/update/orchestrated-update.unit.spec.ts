/**
 * The update supervisor inside the orchestrator: the core with the supervisor wired in,
 * the restart supervisor beside it, and the other components simulated.
 */
import { TaskState } from '@shoal/contracts';
import type { ServiceSpec, UpdateConfig } from '@shoal/contracts';
import { serviceSpec, keptJoinTokens } from '@shoal/testing';
import { OrchestratorCore } from '../orchestrator-core';
import { Simulation } from '@shoal/testing';
import { superviseUpdate } from './supervise-update';

const spec = (tag: string, update: Partial<UpdateConfig> = {}, rollback: Partial<UpdateConfig> = {}): ServiceSpec =>
  serviceSpec('web', { kind: 'replicated', replicas: 3 }, {
    task: { container: { image: `nginx:${tag}` }, restartPolicy: { condition: 'any', delayMs: 1_000, maxAttempts: 0, windowMs: 0 } },
    update: { parallelism: 1, delayMs: 0, failureAction: 'pause', monitorMs: 2_000, maxFailureRatio: 0, order: 'stop-first', ...update },
    rollback: { parallelism: 0, delayMs: 0, failureAction: 'pause', monitorMs: 2_000, maxFailureRatio: 0, order: 'stop-first', ...rollback },
  });

const orchestrator = (prefix = 't'): OrchestratorCore => {
  let n = 0;
  return new OrchestratorCore({ newId: () => `${prefix}${++n}`, superviseUpdate });
};

const cluster = (core = orchestrator()): Simulation => {
  const sim = new Simulation(core, { fails: (task) => task.spec.container.image === 'nginx:bad' });
  sim.append('ClusterInitialized', { spec: { name: 'default', orchestration: { taskHistoryRetentionLimit: 5 }, dispatcher: { heartbeatPeriodMs: 5_000 }, nodeDownPeriodMs: 86_400_000 }, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }) });
  for (const id of ['n1', 'n2', 'n3']) sim.addNode(id);
  return sim;
};

const images = (sim: Simulation): string[] => sim.running('s').map((t) => t.spec.container.image).sort();

describe('rolling updates in the orchestrator', () => {
  it('given a running service, when its image changes, then every slot is replaced and the update completes', () => {
    const sim = cluster();
    sim.append('ServiceCreated', { id: 's', spec: spec('1') });
    sim.settle();
    expect(images(sim)).toEqual(['nginx:1', 'nginx:1', 'nginx:1']);
    sim.append('ServiceUpdated', { id: 's', spec: spec('2') });
    sim.settle(200);
    expect(images(sim)).toEqual(['nginx:2', 'nginx:2', 'nginx:2']);
    expect(sim.state.services.get('s')?.updateStatus).toMatchObject({ state: 'completed', message: 'update completed' });
    const states = sim.written('ServiceUpdateStatusChanged').map((e) => e.data.status?.state);
    expect(states).toEqual(['updating', 'completed']);
  });

  it('given start-first, when the image changes, then the service never runs fewer than its replicas', () => {
    const sim = cluster();
    sim.append('ServiceCreated', { id: 's', spec: spec('1', { order: 'start-first' }) });
    sim.settle();
    sim.append('ServiceUpdated', { id: 's', spec: spec('2', { order: 'start-first' }) });
    let fewest = 3;
    for (let i = 0; i < 200 && sim.state.services.get('s')?.updateStatus?.state !== 'completed'; i++) {
      sim.step();
      sim.advance(500);
      fewest = Math.min(fewest, sim.running('s').length + sim.tasksOf('s').filter((t) => t.desiredState > TaskState.RUNNING && t.status.state === TaskState.RUNNING).length);
    }
    expect(images(sim)).toEqual(['nginx:2', 'nginx:2', 'nginx:2']);
    expect(fewest).toBeGreaterThanOrEqual(3);
  });

  it('given a new version that fails, when the failure action is rollback, then the service goes back to its previous spec and the rollback completes', () => {
    const sim = cluster();
    sim.append('ServiceCreated', { id: 's', spec: spec('1', { failureAction: 'rollback' }) });
    sim.settle();
    sim.append('ServiceUpdated', { id: 's', spec: spec('bad', { failureAction: 'rollback' }) });
    sim.settle(200);
    const service = sim.state.services.get('s')!;
    expect(service.spec.task.container.image).toBe('nginx:1');
    expect(service.updateStatus).toMatchObject({ state: 'rollback_completed', message: 'rollback completed' });
    expect(images(sim)).toEqual(['nginx:1', 'nginx:1', 'nginx:1']);
    expect(sim.written('ServiceUpdated')).toHaveLength(1);
    expect(sim.log.filter((e) => e.verdict.status === 'rejected' && e.event.by.component === 'orchestrator')).toEqual([]);
  });

  it('given a new version that fails, when the failure action is pause, then the update pauses with one slot tried', () => {
    const sim = cluster();
    sim.append('ServiceCreated', { id: 's', spec: spec('1') });
    sim.settle();
    sim.append('ServiceUpdated', { id: 's', spec: spec('bad') });
    sim.settle(200);
    expect(sim.state.services.get('s')?.updateStatus).toMatchObject({ state: 'paused', message: expect.stringMatching(/^update paused due to failure or early termination of task /) });
    expect(images(sim)).toEqual(['nginx:1', 'nginx:1']);
    // The next update unpauses it.
    sim.append('ServiceUpdated', { id: 's', spec: spec('3') });
    sim.settle(200);
    expect(images(sim)).toEqual(['nginx:3', 'nginx:3', 'nginx:3']);
    expect(sim.state.services.get('s')?.updateStatus?.state).toBe('completed');
  });

  it('given a global service, when its image changes start-first, then each node gets the new task before its old one stops', () => {
    const sim = cluster();
    const global = (tag: string): ServiceSpec =>
      serviceSpec('agent', { kind: 'global' }, {
        task: { container: { image: `nginx:${tag}` } },
        update: { parallelism: 1, delayMs: 0, failureAction: 'pause', monitorMs: 1_000, maxFailureRatio: 0, order: 'start-first' },
      });
    sim.append('ServiceCreated', { id: 's', spec: global('1') });
    sim.settle();
    expect(images(sim)).toEqual(['nginx:1', 'nginx:1', 'nginx:1']);
    sim.append('ServiceUpdated', { id: 's', spec: global('2') });
    let most = 0;
    for (let i = 0; i < 200 && sim.state.services.get('s')?.updateStatus?.state !== 'completed'; i++) {
      sim.step();
      sim.advance(500);
      most = Math.max(most, sim.runnable('s').length);
    }
    expect(images(sim)).toEqual(['nginx:2', 'nginx:2', 'nginx:2']);
    expect(sim.state.services.get('s')?.updateStatus?.state).toBe('completed');
    // Start-first with parallelism 1: at most one node runs two tasks at once.
    expect(most).toBe(4);
    for (const nodeId of ['n1', 'n2', 'n3']) expect(sim.running('s').filter((t) => t.nodeId === nodeId)).toHaveLength(1);
  });

  it('given the orchestrator restarts mid-update, then a new one picks the update up from the log and finishes it', () => {
    const sim = cluster();
    sim.append('ServiceCreated', { id: 's', spec: spec('1', { delayMs: 5_000 }) });
    sim.settle();
    sim.append('ServiceUpdated', { id: 's', spec: spec('2', { delayMs: 5_000 }) });
    for (let i = 0; i < 4; i++) sim.step();
    expect(images(sim)).toContain('nginx:1');
    expect(images(sim)).toContain('nginx:2');

    // A new orchestrator replays the same log, reconciles once, and carries on.
    const next = cluster(orchestrator('r'));
    for (const { event } of sim.log.slice(next.log.length)) {
      next.advance(Date.parse(event.at) - next.now().getTime());
      next.append(event.type, event.data as never, event.by.component);
    }
    expect(next.state.services.get('s')?.updateStatus?.state).toBe('updating');
    next.core.reconcileAll(next.state);
    next.settle(200);
    expect(images(next)).toEqual(['nginx:2', 'nginx:2', 'nginx:2']);
    expect(next.state.services.get('s')?.updateStatus?.state).toBe('completed');
    // It did not start the update over: one 'updating' in the whole log.
    expect(next.log.filter((e) => e.event.type === 'ServiceUpdateStatusChanged' && e.event.data.status?.state === 'updating')).toHaveLength(1);
    const desired = next.tasksOf('s').filter((t) => t.desiredState === TaskState.RUNNING);
    expect(desired).toHaveLength(3);
  });
});
