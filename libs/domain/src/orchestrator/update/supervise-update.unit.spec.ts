import { TaskState } from '@shoal/contracts';
import { serviceSpec } from '@shoal/testing';
import { fromStateData, toStateData } from '../../snapshot';
import { superviseUpdate } from './supervise-update';
import { UpdateWorld, image, replicated } from './update-world.fixture';

const { RUNNING, SHUTDOWN, FAILED, READY } = TaskState;

/** The ids of the tasks of `s` meant to run, by slot. */
const running = (world: UpdateWorld) =>
  world
    .desiredRunning('s')
    .map((task) => `${task.slot ?? task.nodeId}:${task.spec.container.image}`)
    .sort();

describe('update supervisor: starting and batching', () => {
  it('given a scale change only, when supervised, then nothing happens and no update status is written', () => {
    const world = new UpdateWorld().service('s', replicated(2));
    world.update('s', replicated(3));
    expect(world.decide('s')).toEqual({ proposals: [] });
  });

  it('given a new image, when supervised, then the update starts: status "update in progress" and the first slot replaced stop-first', () => {
    const world = new UpdateWorld().service('s', replicated(3, {}));
    const [first] = world.tasksOf('s');
    world.update('s', image('2', replicated(3, {})));
    const decision = world.decide('s');
    expect(decision.proposals).toEqual([
      {
        type: 'ServiceUpdateStatusChanged',
        data: { id: 's', status: { state: 'updating', message: 'update in progress', startedAt: world.now.toISOString() } },
        expect: { serviceVersions: { s: 2 } },
      },
      {
        type: 'TaskDesiredStatesChanged',
        data: { tasks: [{ id: first!.id, desiredState: SHUTDOWN, reason: 'updated to service version 2' }] },
      },
      {
        type: 'TasksCreated',
        data: {
          tasks: [
            { id: 'u1', serviceId: 's', slot: 1, specVersion: 2, spec: image('2', replicated(3)).task, desiredState: RUNNING, replaces: first!.id },
          ],
        },
      },
    ]);
  });

  it('given parallelism 1, when the new task has not started yet, then the next slot waits; once it runs, the next slot goes', () => {
    const world = new UpdateWorld().service('s', replicated(3, {}));
    world.update('s', image('2', replicated(3, {})));
    world.step('s');
    expect(world.decide('s').proposals).toEqual([]);
    world.startAll();
    const next = world.step('s');
    expect(next.proposals.map((p) => p.type)).toEqual(['TaskDesiredStatesChanged', 'TasksCreated']);
    expect(running(world)).toEqual(['1:nginx:2', '2:nginx:2', '3:nginx:1.27']);
  });

  it('given a delay, when a new task is running, then the next slot waits out the delay and says when to look again', () => {
    const world = new UpdateWorld().service('s', replicated(2, { delayMs: 10_000 }));
    world.update('s', image('2', replicated(2, { delayMs: 10_000 })));
    world.step('s');
    world.startAll();
    const startedAt = Date.parse(world.desiredRunning('s').find((t) => t.slot === 1)!.startedAt!);
    const waiting = world.decide('s');
    expect(waiting).toEqual({ proposals: [], wakeAt: startedAt + 10_000 });
    world.wait(10_000);
    expect(world.decide('s').proposals.map((p) => p.type)).toEqual(['TaskDesiredStatesChanged', 'TasksCreated']);
  });

  it('given parallelism 2, when supervised, then two slots are replaced per batch', () => {
    const world = new UpdateWorld().service('s', replicated(5, { parallelism: 2 }));
    world.update('s', image('2', replicated(5, { parallelism: 2 })));
    world.step('s');
    expect(running(world)).toEqual(['1:nginx:2', '2:nginx:2', '3:nginx:1.27', '4:nginx:1.27', '5:nginx:1.27']);
    world.start('u1');
    world.step('s');
    expect(running(world).filter((r) => r.endsWith(':2'))).toHaveLength(3);
  });

  it('given parallelism 0, when supervised, then every slot is replaced at once', () => {
    const world = new UpdateWorld().service('s', replicated(4, { parallelism: 0 }));
    world.update('s', image('2', replicated(4, { parallelism: 0 })));
    world.step('s');
    expect(running(world)).toEqual(['1:nginx:2', '2:nginx:2', '3:nginx:2', '4:nginx:2']);
  });

  it('given a forced update with an unchanged image, when supervised, then the tasks are replaced', () => {
    const spec = replicated(1, {});
    const world = new UpdateWorld().service('s', spec);
    world.update('s', { ...spec, task: { ...spec.task, forceUpdate: 1 } });
    world.step('s');
    expect(world.desiredRunning('s').map((t) => t.id)).toEqual(['u1']);
  });

  it('is not used for jobs', () => {
    const world = new UpdateWorld();
    world.service('s', serviceSpec('job', { kind: 'replicated-job', maxConcurrent: 1, totalCompletions: 1 }));
    world.update('s', image('2', serviceSpec('job', { kind: 'replicated-job', maxConcurrent: 1, totalCompletions: 1 })));
    expect(world.decide('s').proposals).toEqual([]);
  });
});

describe('update supervisor: order', () => {
  it('given start-first, when supervised, then the new task starts beside the old one, which is shut down once the new one runs', () => {
    const spec = replicated(1, { order: 'start-first' });
    const world = new UpdateWorld().service('s', spec);
    const [old] = world.tasksOf('s');
    world.update('s', image('2', spec));
    world.step('s');
    expect(running(world)).toEqual(['1:nginx:1.27', '1:nginx:2']);
    world.place('u1').report('u1', TaskState.STARTING);
    expect(world.decide('s').proposals).toEqual([]);
    world.report('u1', RUNNING);
    const finish = world.step('s');
    expect(finish.proposals).toContainEqual({
      type: 'TaskDesiredStatesChanged',
      data: { tasks: [{ id: old!.id, desiredState: SHUTDOWN, reason: 'updated to service version 2' }] },
    });
    expect(running(world)).toEqual(['1:nginx:2']);
  });

  it('given stop-first, when supervised, then a slot never has two tasks meant to run', () => {
    const world = new UpdateWorld().service('s', replicated(2, {}));
    world.update('s', image('2', replicated(2, {})));
    world.step('s');
    const slot1 = world.desiredRunning('s').filter((t) => t.slot === 1);
    expect(slot1.map((t) => t.id)).toEqual(['u1']);
  });

  it('given a slot with an up-to-date task and a stale one (an interrupted start-first), then the stale one is shut down', () => {
    const spec = replicated(1, { order: 'start-first' });
    const world = new UpdateWorld().service('s', spec);
    world.update('s', image('2', spec));
    world.step('s');
    world.start('u1');
    // Restarted orchestrator: it never saw its own start-first finish, and decides from the state alone.
    const restored = fromStateData(toStateData(world.state));
    expect(restored.tasks.size).toBe(world.state.tasks.size);
    world.step('s');
    expect(running(world)).toEqual(['1:nginx:2']);
  });
});

describe('update supervisor: a newer start-first update over an interrupted one', () => {
  it('given a slot with the old task running and a stale new one not yet started, then the stale one stops at once and one task keeps serving', () => {
    const spec = replicated(2, { order: 'start-first' });
    const world = new UpdateWorld().service('s', spec);
    const [t1, t2] = world.tasksOf('s');
    world.update('s', image('2', spec));
    world.step('s');
    world.start('u1');
    world.step('s');
    // u2 (nginx:2) is created for slot 2 and has not started when nginx:3 comes.
    world.update('s', image('3', spec));
    world.step('s');
    const slot2 = world.desiredRunning('s').filter((t) => t.slot === 2);
    expect(slot2.map((t) => t.id)).toEqual([t2!.id]);
    expect(world.task('u2').desiredState).toBe(SHUTDOWN);
    expect(world.task(t1!.id).desiredState).toBe(SHUTDOWN);
  });
});

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

  it('given start-first and failure action continue, when a new task fails and is not restarted, then the old one keeps serving and the update still completes', () => {
    const spec = replicated(1, { order: 'start-first', failureAction: 'continue', monitorMs: 1_000 });
    const world = new UpdateWorld().service('s', spec);
    const [old] = world.tasksOf('s');
    world.update('s', image('2', spec));
    world.step('s');
    world.start('u1').report('u1', FAILED);
    world.propose({ type: 'TaskDesiredStatesChanged', data: { tasks: [{ id: 'u1', desiredState: SHUTDOWN }] } });
    world.wait(1_000);
    world.step('s');
    expect(world.service$('s').updateStatus?.state).toBe('completed');
    expect(world.desiredRunning('s').map((t) => t.id)).toEqual([old!.id]);
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

describe('update supervisor: one update at a time, from the state alone', () => {
  it('given an update in flight, when the service is updated again, then the newer update replaces it, stale new tasks included', () => {
    const spec = replicated(3, {});
    const world = new UpdateWorld().service('s', spec);
    world.update('s', image('2', spec));
    world.step('s');
    world.startAll();
    world.update('s', image('3', spec));
    const decision = world.step('s');
    expect(decision.proposals[0]).toMatchObject({ type: 'ServiceUpdateStatusChanged', data: { status: { state: 'updating' } } });
    for (let i = 0; i < 6; i++) world.startAll().step('s');
    expect(running(world)).toEqual(['1:nginx:3', '2:nginx:3', '3:nginx:3']);
  });

  it('decides the same from a restored snapshot as from the live state: an update resumes where it was', () => {
    const spec = replicated(4, { parallelism: 2, delayMs: 5_000 });
    const world = new UpdateWorld().service('s', spec);
    world.update('s', image('2', spec));
    world.step('s');
    world.startAll();
    world.wait(5_000);
    const counter = () => {
      let n = 0;
      return () => `r${++n}`;
    };
    const live = superviseUpdate(world.state, 's', world.now, counter());
    const again = superviseUpdate(fromStateData(toStateData(world.state)), 's', world.now, counter());
    expect(again).toEqual(live);
    expect(again.proposals.map((p) => p.type)).toEqual(['TaskDesiredStatesChanged', 'TasksCreated']);
  });

  it('updates a global service node by node, the new task on the same node', () => {
    const spec = serviceSpec('agent', { kind: 'global' });
    const world = new UpdateWorld(2).service('s', spec);
    world.update('s', image('2', spec));
    world.step('s');
    const created = world.task('u1');
    expect(created).toMatchObject({ nodeId: 'n1', specVersion: 2, desiredState: RUNNING });
    expect(created.slot).toBeUndefined();
    world.startAll().step('s');
    expect(running(world)).toEqual(['n1:nginx:2', 'n2:nginx:2']);
  });

  it('given two up-to-date tasks in one slot, then one keeps running and the other is shut down', () => {
    const world = new UpdateWorld().service('s', replicated(1, {}));
    const spec = world.service$('s').spec.task;
    world.propose({ type: 'TasksCreated', data: { tasks: [{ id: 'twin', serviceId: 's', slot: 1, specVersion: 1, spec, desiredState: RUNNING }] } });
    const decision = world.step('s');
    expect(decision.proposals).toEqual([
      { type: 'ServiceUpdateStatusChanged', data: { id: 's', status: expect.objectContaining({ state: 'updating' }) }, expect: { serviceVersions: { s: 1 } } },
      { type: 'TaskDesiredStatesChanged', data: { tasks: [{ id: 'twin', desiredState: SHUTDOWN, reason: 'updated to service version 1' }] } },
    ]);
    expect(world.desiredRunning('s')).toHaveLength(1);
  });

  it('given a stale task and an up-to-date one waiting in its slot, then the stale one is shut down and no new task is made', () => {
    const world = new UpdateWorld().service('s', replicated(1, {}));
    const [old] = world.tasksOf('s');
    world.update('s', image('2', replicated(1, {})));
    world.propose({
      type: 'TasksCreated',
      data: { tasks: [{ id: 'ready', serviceId: 's', slot: 1, specVersion: 2, spec: world.service$('s').spec.task, desiredState: READY }] },
    });
    world.step('s');
    expect(world.task(old!.id).desiredState).toBe(SHUTDOWN);
    expect(world.desiredRunning('s').map((t) => t.id)).toEqual(['ready']);
  });

  it('leaves a task waiting out a restart delay (desired READY) to the restart supervisor', () => {
    const world = new UpdateWorld().service('s', replicated(1, {}));
    world.update('s', image('2', replicated(1, {})));
    const [old] = world.tasksOf('s');
    world.propose({ type: 'TaskDesiredStatesChanged', data: { tasks: [{ id: old!.id, desiredState: SHUTDOWN }] } });
    world.propose({
      type: 'TasksCreated',
      data: { tasks: [{ id: 'r1', serviceId: 's', slot: 1, specVersion: 2, spec: world.service$('s').spec.task, desiredState: READY, replaces: old!.id }] },
    });
    expect(world.decide('s').proposals).toEqual([]);
  });
});
