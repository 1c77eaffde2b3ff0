import { TaskState } from '@shoal/contracts';
import type { FailureAction, UpdateConfig } from '@shoal/contracts';
import fc from 'fast-check';
import { isTaskDirty } from './task-dirty';
import { UpdateWorld, image, replicated } from '@shoal/testing';

const { RUNNING, FAILED } = TaskState;

type Step =
  | { readonly kind: 'decide' }
  | { readonly kind: 'start'; readonly pick: number }
  | { readonly kind: 'fail'; readonly pick: number }
  | { readonly kind: 'stop' }
  | { readonly kind: 'wait'; readonly ms: number }
  | { readonly kind: 'update'; readonly tag: number };

const steps = (withFailures: boolean): fc.Arbitrary<Step[]> =>
  fc.array(
    fc.oneof(
      { weight: 5, arbitrary: fc.constant<Step>({ kind: 'decide' }) },
      { weight: 4, arbitrary: fc.nat(20).map((pick): Step => ({ kind: 'start', pick })) },
      { weight: withFailures ? 1 : 0, arbitrary: fc.nat(20).map((pick): Step => ({ kind: 'fail', pick })) },
      { weight: 2, arbitrary: fc.constant<Step>({ kind: 'stop' }) },
      { weight: 2, arbitrary: fc.constantFrom(500, 2_000, 6_000).map((ms): Step => ({ kind: 'wait', ms })) },
      { weight: 1, arbitrary: fc.nat(3).map((tag): Step => ({ kind: 'update', tag: tag + 3 })) },
    ),
    { maxLength: 60 },
  );

const updateConfig = (order: UpdateConfig['order']): fc.Arbitrary<Partial<UpdateConfig>> =>
  fc.record({
    parallelism: fc.nat(3),
    delayMs: fc.constantFrom(0, 1_000),
    monitorMs: fc.constantFrom(0, 3_000),
    failureAction: fc.constantFrom<FailureAction>('pause', 'continue', 'rollback'),
    maxFailureRatio: fc.constantFrom(0, 0.5),
    order: fc.constant(order),
  });

const play = (world: UpdateWorld, step: Step, base: ReturnType<typeof replicated>): void => {
  const notStarted = () => world.tasksOf('s').filter((t) => t.desiredState === RUNNING && t.status.state < RUNNING);
  switch (step.kind) {
    case 'decide':
      world.step('s');
      return;
    case 'start': {
      const waiting = notStarted();
      if (waiting.length > 0) world.start(waiting[step.pick % waiting.length]!.id);
      return;
    }
    case 'fail': {
      const candidates = world.tasksOf('s').filter((t) => t.desiredState === RUNNING && t.status.state <= RUNNING);
      const task = candidates[step.pick % Math.max(candidates.length, 1)];
      if (task) world.place(task.id).report(task.id, FAILED);
      return;
    }
    case 'stop':
      world.stopAll();
      return;
    case 'wait':
      world.wait(step.ms);
      return;
    case 'update':
      world.update('s', image(String(step.tag), base));
      return;
    default: {
      const _exhaustive: never = step;
      return _exhaustive;
    }
  }
};

/** Slots being replaced right now by the current update: its new task is meant to run and has not started. */
const replacingNow = (world: UpdateWorld): number => {
  const service = world.service$('s');
  const slots = new Set<number>();
  for (const task of world.tasksOf('s')) {
    if (task.replaces === undefined || isTaskDirty(service, task) || task.specVersion !== service.version) continue;
    if (task.desiredState === RUNNING && task.status.state < RUNNING) slots.add(task.slot ?? 0);
  }
  return slots.size;
};

describe('update supervisor invariants', () => {
  it('during a stop-first update a slot never has two tasks meant to run, and parallelism is never exceeded', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), updateConfig('stop-first'), steps(true), (replicas, update, script) => {
        const base = replicated(replicas, update, update);
        const world = new UpdateWorld().service('s', base);
        world.update('s', image('2', base));
        for (const step of script) {
          play(world, step, base);
          const perSlot = new Map<number, number>();
          for (const task of world.tasksOf('s')) {
            if (task.desiredState === RUNNING) perSlot.set(task.slot ?? 0, (perSlot.get(task.slot ?? 0) ?? 0) + 1);
          }
          for (const [slot, count] of perSlot) expect({ slot, count }).toEqual({ slot, count: 1 });
          const parallelism = world.service$('s').spec.update?.parallelism ?? 1;
          if (parallelism > 0) expect(replacingNow(world)).toBeLessThanOrEqual(parallelism);
        }
        expect(world.verdicts.filter((v) => v.status === 'rejected')).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('a start-first update never runs more than parallelism extra tasks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), updateConfig('start-first'), steps(true), (replicas, update, script) => {
        const base = replicated(replicas, update, update);
        const world = new UpdateWorld().service('s', base);
        world.update('s', image('2', base));
        for (const step of script) {
          play(world, step, base);
          const parallelism = world.service$('s').spec.update?.parallelism ?? 1;
          const meantToRun = world.tasksOf('s').filter((t) => t.desiredState === RUNNING && t.status.state <= RUNNING).length;
          if (parallelism > 0) expect(meantToRun).toBeLessThanOrEqual(replicas + parallelism);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('without failures, every update completes with every slot on the current spec, whatever the order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom<UpdateConfig['order']>('stop-first', 'start-first').chain(updateConfig),
        steps(false),
        (replicas, update, script) => {
          const base = replicated(replicas, update, update);
          const world = new UpdateWorld().service('s', base);
          world.update('s', image('2', base));
          for (const step of script) play(world, step, base);
          // Then the cluster settles: agents start and stop what they are told, time passes.
          for (let round = 0; round < 4 * replicas + 4; round++) {
            world.step('s');
            world.startAll().stopAll().wait(5_000);
          }
          const service = world.service$('s');
          // An update to the spec the tasks already run has nothing to do and writes no status.
          expect([undefined, 'completed']).toContain(service.updateStatus?.state);
          const live = world.tasksOf('s').filter((t) => t.desiredState === RUNNING);
          expect(live).toHaveLength(replicas);
          for (const task of live) expect(isTaskDirty(service, task)).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
  });
});
