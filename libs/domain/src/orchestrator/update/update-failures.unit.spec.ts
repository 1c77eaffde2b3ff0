import { TaskState } from '@shoal/contracts';
import { UpdateWorld, image, replicated, runningImages as running } from '@shoal/testing';

const { RUNNING, SHUTDOWN, FAILED } = TaskState;

describe('update supervisor: monitor and completion', () => {
  it('given the last slot is updated, then it watches for the monitor period, then marks the update completed', () => {
    const world = new UpdateWorld().service('s', replicated(1, { monitorMs: 5_000 }));
    world.update('s', image('2', replicated(1, { monitorMs: 5_000 })));
    world.step('s');
    world.startAll();
    const startedAt = Date.parse(world.task('u1').startedAt!);
    expect(world.decide('s')).toEqual({ proposals: [], wakeAt: startedAt + 5_000 });
    world.wait(5_000);
    const now = world.now.toISOString();
    const done = world.step('s');
    expect(done.proposals).toEqual([
      {
        type: 'ServiceUpdateStatusChanged',
        data: {
          id: 's',
          status: { state: 'completed', message: 'update completed', startedAt: expect.any(String), completedAt: now },
        },
        expect: { serviceVersions: { s: 2 } },
      },
    ]);
    expect(world.service$('s').updateStatus?.state).toBe('completed');
    expect(world.decide('s').proposals).toEqual([]);
  });

  it('given a task of the update fails within the monitor period, then the update pauses with Docker\'s message', () => {
    const world = new UpdateWorld().service('s', replicated(2, {}));
    world.update('s', image('2', replicated(2, {})));
    world.step('s');
    world.start('u1').wait(1_000).report('u1', FAILED);
    world.step('s');
    expect(world.service$('s').updateStatus).toMatchObject({
      state: 'paused',
      message: 'update paused due to failure or early termination of task u1',
    });
    expect(running(world)).toEqual(['1:nginx:2', '2:nginx:1.27']);
  });

  it('given start-first and failure action continue, when a new task fails and nothing restarts it, then the old one keeps serving and the slot is tried again after the restart delay', () => {
    const spec = replicated(1, { order: 'start-first', failureAction: 'continue', monitorMs: 1_000 });
    const world = new UpdateWorld().service('s', spec);
    const [old] = world.tasksOf('s');
    world.update('s', image('2', spec));
    world.step('s');
    world.start('u1').report('u1', FAILED);
    world.propose({ type: 'TaskDesiredStatesChanged', data: { tasks: [{ id: 'u1', desiredState: SHUTDOWN }] } });
    const failedAt = Date.parse(world.task('u1').status.at);
    // The default restart delay is 5 s.
    expect(world.decide('s')).toEqual({ proposals: [], wakeAt: failedAt + 5_000 });
    expect(world.desiredRunning('s').map((t) => t.id)).toEqual([old!.id]);
    world.wait(5_000);
    world.step('s');
    expect(world.task('u2')).toMatchObject({ slot: 1, replaces: old!.id, desiredState: RUNNING });
    world.start('u2');
    world.step('s');
    world.wait(1_000).step('s');
    expect(world.service$('s').updateStatus?.state).toBe('completed');
    expect(world.desiredRunning('s').map((t) => t.id)).toEqual(['u2']);
  });

  it('given a task that never started fails, then it counts as a failure', () => {
    const world = new UpdateWorld().service('s', replicated(2, {}));
    world.update('s', image('2', replicated(2, {})));
    world.step('s');
    world.place('u1').report('u1', TaskState.REJECTED);
    world.step('s');
    expect(world.service$('s').updateStatus?.state).toBe('paused');
  });

  it('given a task fails after its monitor period, then it does not count', () => {
    const world = new UpdateWorld().service('s', replicated(2, { monitorMs: 2_000, delayMs: 30_000 }));
    world.update('s', image('2', replicated(2, { monitorMs: 2_000, delayMs: 30_000 })));
    world.step('s');
    world.start('u1').wait(3_000).report('u1', FAILED);
    world.step('s');
    expect(world.service$('s').updateStatus?.state).toBe('updating');
  });

  it('given a paused update, then it stays paused: nothing more is replaced until the service is updated again', () => {
    const world = new UpdateWorld().service('s', replicated(2, {}));
    world.update('s', image('2', replicated(2, {})));
    world.step('s');
    world.start('u1').report('u1', FAILED);
    world.step('s');
    world.wait(60_000);
    expect(world.decide('s')).toEqual({ proposals: [] });
    world.update('s', image('3', replicated(2, {})));
    expect(world.service$('s').updateStatus).toBeUndefined();
    world.step('s');
    expect(world.service$('s').updateStatus?.state).toBe('updating');
    expect(world.desiredRunning('s').some((t) => t.spec.container.image === 'nginx:3')).toBe(true);
  });

  it('given failure action continue, then failures do not stop the update', () => {
    const spec = replicated(2, { failureAction: 'continue' });
    const world = new UpdateWorld().service('s', spec);
    world.update('s', image('2', spec));
    world.step('s');
    world.start('u1').report('u1', FAILED);
    world.step('s');
    expect(world.service$('s').updateStatus?.state).toBe('updating');
    expect(running(world).filter((r) => r.endsWith(':2')).length).toBe(2);
  });

  it('given a max failure ratio, then the action waits until the share of failed slots exceeds it', () => {
    const spec = replicated(4, { parallelism: 0, maxFailureRatio: 0.5 });
    const world = new UpdateWorld().service('s', spec);
    world.update('s', image('2', spec));
    world.step('s');
    world.startAll();
    world.report('u1', FAILED).report('u2', FAILED);
    world.step('s');
    expect(world.service$('s').updateStatus?.state).toBe('updating');
    world.report('u3', FAILED);
    world.step('s');
    expect(world.service$('s').updateStatus).toMatchObject({ state: 'paused', message: expect.stringMatching(/task u1$/) });
  });
});

describe('update supervisor: rollback', () => {
  const v1 = replicated(3, { parallelism: 0, failureAction: 'rollback' }, { parallelism: 1, monitorMs: 1_000, failureAction: 'rollback' });

  /** v1 → v2 with every slot replaced at once; u1 fails and its restart is left out (its slot empties). */
  const failingUpdate = (): UpdateWorld => {
    const world = new UpdateWorld().service('s', v1);
    world.update('s', image('2', v1));
    world.step('s');
    world.startAll().report('u1', FAILED);
    world.propose({ type: 'TaskDesiredStatesChanged', data: { tasks: [{ id: 'u1', desiredState: SHUTDOWN }] } });
    return world;
  };

  it('given failure action rollback, when a new task fails, then the service goes back to its previous spec and rolls back with the rollback config', () => {
    const world = failingUpdate();
    const decision = world.step('s');
    expect(decision.proposals).toEqual([
      {
        type: 'ServiceUpdated',
        data: { id: 's', spec: v1, rollback: true, message: 'update rolled back due to failure or early termination of task u1' },
        expect: { serviceVersions: { s: 2 } },
      },
    ]);
    expect(world.verdicts.at(-1)?.status).toBe('applied');
    const service = world.service$('s');
    expect(service.spec.task.container.image).toBe('nginx:1.27');
    expect(service.version).toBe(3);
    expect(service.updateStatus).toMatchObject({
      state: 'rollback_started',
      message: 'update rolled back due to failure or early termination of task u1',
    });
    // The rollback config has parallelism 1 where the update had 0: one slot at a time.
    world.step('s');
    expect(running(world)).toEqual(['2:nginx:1.27', '3:nginx:2']);
    world.startAll().step('s');
    expect(running(world)).toEqual(['2:nginx:1.27', '3:nginx:1.27']);
    world.startAll().wait(1_000).step('s');
    expect(world.service$('s').updateStatus).toMatchObject({ state: 'rollback_completed', message: 'rollback completed' });
  });

  it('never rolls back a rollback: a failing rollback pauses', () => {
    const world = failingUpdate();
    world.step('s');
    world.step('s');
    const rolledBack = world.tasksOf('s').find((t) => t.slot === 2 && t.desiredState === RUNNING)!;
    expect(rolledBack.specVersion).toBe(3);
    world.start(rolledBack.id).report(rolledBack.id, FAILED);
    world.step('s');
    expect(world.service$('s').updateStatus).toMatchObject({
      state: 'rollback_paused',
      message: `rollback paused due to failure or early termination of task ${rolledBack.id}`,
    });
    expect(world.service$('s').spec.task.container.image).toBe('nginx:1.27');
    expect(world.decide('s').proposals).toEqual([]);
  });

  it('given a manual rollback, then it rolls back with the rollback config and completes as a rollback', () => {
    const world = new UpdateWorld().service('s', v1);
    world.update('s', image('2', v1));
    world.step('s');
    world.startAll();
    world.rollback('s');
    expect(world.service$('s').updateStatus).toMatchObject({ state: 'rollback_started', message: 'manually requested rollback' });
    world.step('s');
    // Rollback parallelism 1: one slot now.
    expect(running(world)).toEqual(['1:nginx:1.27', '2:nginx:2', '3:nginx:2']);
  });
});
