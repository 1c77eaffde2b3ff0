/**
 * The seam between the orchestrator's own plan (restarts, reconciles, node handling) and
 * the update supervisor: in one decision, a slot (or a global service's node) is acted on
 * by one of them at most — the updater's work on a slot the plan touches waits for the
 * next decision, which sees the plan applied.
 */
import fc from 'fast-check';
import { TaskState } from '@shoal/contracts';
import type { NewTask, ServiceSpec, UpdateConfig } from '@shoal/contracts';
import type { Proposal } from '../component-core';
import type { ClusterState } from '../state';
import { OrchestratorCore } from './orchestrator-core';
import { Simulation } from '@shoal/testing';

const { RUNNING, FAILED, SHUTDOWN } = TaskState;

const update: UpdateConfig = { parallelism: 0, delayMs: 0, failureAction: 'continue', monitorMs: 1_000, maxFailureRatio: 1, order: 'stop-first' };

const spec = (image: string, replicas = 2, overrides: Partial<ServiceSpec> = {}): ServiceSpec => ({
  name: 'web',
  task: { container: { image }, restartPolicy: { condition: 'any', delayMs: 0, maxAttempts: 0, windowMs: 0 } },
  mode: { kind: 'replicated', replicas },
  update,
  rollback: update,
  ...overrides,
});

/** The update supervisor's work: its shutdowns give the new version as reason, its new tasks replace a task and are meant to run at once. */
const byUpdater = {
  change: (reason: string | undefined): boolean => /^(updated|rolled back) to service version/.test(reason ?? ''),
  task: (task: Pick<NewTask, 'replaces' | 'desiredState'>): boolean => task.replaces !== undefined && task.desiredState === RUNNING,
};

interface Touch {
  readonly slot: string;
  readonly task?: string;
  readonly updater: boolean;
}

/** Every slot (or node) a decision's proposals act on, and by whom. */
const touches = (proposals: readonly Proposal[], state: ClusterState): Touch[] => {
  const out: Touch[] = [];
  const keyOf = (t: { readonly serviceId: string; readonly slot?: number; readonly nodeId?: string }) =>
    t.slot !== undefined ? `${t.serviceId}/${t.slot}` : `${t.serviceId}@${t.nodeId ?? '?'}`;
  for (const p of proposals) {
    if (p.type === 'TaskDesiredStatesChanged') {
      for (const item of p.data.tasks) {
        const task = state.tasks.get(item.id);
        if (task) out.push({ slot: keyOf(task), task: item.id, updater: byUpdater.change(item.reason) });
      }
    } else if (p.type === 'TasksCreated') {
      for (const item of p.data.tasks) out.push({ slot: keyOf(item), updater: byUpdater.task(item) });
    }
  }
  return out;
};

/** Slots and tasks acted on both by the plan and by the update supervisor in one decision. */
const conflicts = (proposals: readonly Proposal[], state: ClusterState): string[] => {
  const all = touches(proposals, state);
  const planned = new Set(all.filter((t) => !t.updater).flatMap((t) => [t.slot, ...(t.task ? [t.task] : [])]));
  const changed = new Map<string, number>();
  for (const t of all) if (t.task) changed.set(t.task, (changed.get(t.task) ?? 0) + 1);
  return [
    ...all.filter((t) => t.updater && (planned.has(t.slot) || (t.task !== undefined && planned.has(t.task)))).map((t) => t.slot),
    ...[...changed].filter(([, n]) => n > 1).map(([id]) => `task ${id} changed twice`),
  ];
};

/** A simulation whose every decision is checked for conflicts. */
const watched = (options: ConstructorParameters<typeof Simulation>[1] = {}) => {
  let ids = 0;
  const core = new OrchestratorCore({ newId: () => `t${++ids}` });
  const found: string[][] = [];
  const decide = core.decide.bind(core);
  core.decide = (state, now) => {
    const proposals = decide(state, now);
    found.push(conflicts(proposals, state));
    return proposals;
  };
  const sim = new Simulation(core, options);
  return { sim, conflicts: () => found.flat() };
};

describe('one decision, one actor per slot', () => {
  it('given a task that failed and whose replacement waits, when the update comes as the replacement is started, then the updater leaves that slot to the next decision', () => {
    // given: two slots running web:1; slot 1's task fails and the decision restarts it —
    // its replacement, at web:1, waits (desired READY) and this service's update is put off once.
    const { sim, conflicts: found } = watched();
    sim.addNode('n1');
    sim.append('ServiceCreated', { id: 's1', spec: spec('web:1') });
    sim.settle();
    const failed = sim.running('s1').find((t) => t.slot === 1)!;
    sim.advance(1);
    sim.report(failed.id, FAILED);
    sim.decide();
    const waiting = sim.tasksOf('s1').find((t) => t.replaces === failed.id)!;
    expect(waiting.desiredState).toBe(TaskState.READY);

    // when: the service is updated to web:2, and the next decision both starts the waiting
    // replacement (the plan) and is due to update its out-of-date slot (the updater)
    sim.advance(1);
    sim.append('ServiceUpdated', { id: 's1', spec: spec('web:2') });
    const proposals = sim.decide();

    // then: the replacement is started, and the updater does nothing to slot 1 in that decision
    expect(found()).toEqual([]);
    const changes = proposals.flatMap((p) => (p.type === 'TaskDesiredStatesChanged' ? p.data.tasks : []));
    expect(changes.filter((c) => c.id === waiting.id)).toEqual([expect.objectContaining({ desiredState: RUNNING })]);
    const created = proposals.flatMap((p) => (p.type === 'TasksCreated' ? p.data.tasks : []));
    expect(created.filter((t) => t.slot === 1)).toEqual([]);
    // slot 2, which the plan did not touch, is updated in that same decision
    expect(created.filter((t) => t.slot === 2).map((t) => sim.state.tasks.get(t.id)?.spec)).toEqual([spec('web:2').task]);

    // and then the next decision updates slot 1 as well, and the update completes
    sim.advance(1);
    expect(sim.decide().flatMap((p) => (p.type === 'TasksCreated' ? p.data.tasks : [])).map((t) => t.slot)).toEqual([1]);
    sim.settle(100);
    expect(found()).toEqual([]);
    expect(sim.running('s1').map((t) => [t.slot, t.spec.container.image]).sort()).toEqual([
      [1, 'web:2'],
      [2, 'web:2'],
    ]);
    expect(sim.state.tasks.get(waiting.id)!.desiredState).toBe(SHUTDOWN);
    expect(sim.state.services.get('s1')!.updateStatus?.state).toBe('completed');
  });

  type Step =
    | { readonly kind: 'image'; readonly v: number }
    | { readonly kind: 'scale'; readonly replicas: number }
    | { readonly kind: 'fail'; readonly pick: number }
    | { readonly kind: 'node'; readonly node: number; readonly up: boolean }
    | { readonly kind: 'step' }
    | { readonly kind: 'advance'; readonly ms: number };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('image' as const), v: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant('scale' as const), replicas: fc.integer({ min: 0, max: 4 }) }),
    fc.record({ kind: fc.constant('fail' as const), pick: fc.nat(10) }),
    fc.record({ kind: fc.constant('fail' as const), pick: fc.nat(10) }),
    fc.record({ kind: fc.constant('node' as const), node: fc.nat(2), up: fc.boolean() }),
    fc.record({ kind: fc.constant('step' as const) }),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 3_000 }) }),
  );

  it('over random histories of updates, failures and nodes going down, no decision has the plan and the updater act on one slot or node', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 40 }),
        fc.constantFrom<UpdateConfig['order']>('stop-first', 'start-first'),
        fc.boolean(),
        fc.integer({ min: 0, max: 2_000 }),
        (steps, order, global, delayMs) => {
          const { sim, conflicts: found } = watched();
          for (const n of ['n1', 'n2', 'n3']) sim.addNode(n);
          let image = 'web:1';
          let replicas = 3;
          const config = { ...update, order, parallelism: 2 };
          const current = () =>
            spec(image, replicas, {
              task: { container: { image }, restartPolicy: { condition: 'any', delayMs, maxAttempts: 0, windowMs: 0 } },
              update: config,
              rollback: config,
              ...(global ? { mode: { kind: 'global' as const } } : {}),
            });
          sim.append('ServiceCreated', { id: 's1', spec: current() });
          for (const s of steps) {
            if (s.kind === 'image' || s.kind === 'scale') {
              if (s.kind === 'image') image = `web:${s.v}`;
              else replicas = s.replicas;
              sim.append('ServiceUpdated', { id: 's1', spec: current() });
            } else if (s.kind === 'fail') {
              const live = sim.tasksOf('s1').filter((t) => t.status.state >= TaskState.ASSIGNED && t.status.state <= RUNNING);
              const task = live[s.pick % Math.max(1, live.length)];
              if (task && sim.state.nodes.get(task.nodeId!)?.status.state === 'ready') sim.report(task.id, FAILED);
            } else if (s.kind === 'node') {
              sim.append('NodeStatusChanged', { nodes: [{ id: `n${s.node + 1}`, state: s.up ? 'ready' : 'down' }] });
            } else if (s.kind === 'advance') sim.advance(s.ms);
            // A failure or a new spec may land between two decisions, without the other components acting.
            if (s.kind === 'step') sim.step();
            else sim.decide();
            sim.advance(1);
          }
          sim.settle(100, 1_000);
          expect(found()).toEqual([]);
        },
      ),
      { numRuns: 200, seed: 20_261_123 },
    );
  });
});
