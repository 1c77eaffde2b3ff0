import { TaskState } from '@shoal/contracts';
import { serviceSpec } from '@shoal/testing';
import { fromStateData, toStateData } from '../../snapshot';
import { superviseUpdate } from './supervise-update';
import { UpdateWorld, image, replicated, runningImages as running } from '@shoal/testing';

const { RUNNING, SHUTDOWN, READY } = TaskState;

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

  it('given the service tasks by its caller (an index), decides as from the whole state, and looks at no other task', () => {
    const spec = replicated(3, { parallelism: 2 });
    const world = new UpdateWorld().service('s', spec).service('other', { ...replicated(3), name: 'other' });
    world.update('s', image('2', spec));
    const counter = () => {
      let n = 0;
      return () => `r${++n}`;
    };
    const scanned = superviseUpdate(world.state, 's', world.now, counter());
    const given = superviseUpdate(world.state, 's', world.now, counter(), world.tasksOf('s'));
    expect(given).toEqual(scanned);
    expect(given.proposals.map((p) => p.type)).toEqual(['ServiceUpdateStatusChanged', 'TaskDesiredStatesChanged', 'TasksCreated']);
    // What it is given is all it reads: given none of the tasks, it finds no slot out of date.
    expect(superviseUpdate(world.state, 's', world.now, counter(), []).proposals).toEqual([]);
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

  it('given a task on a node that went down, then it is left to the orchestrator, which moves it, and the other slots are updated', () => {
    const world = new UpdateWorld(2).service('s', replicated(2, { parallelism: 0 }));
    world.update('s', image('2', replicated(2, { parallelism: 0 })));
    world.nodeDown('n1');
    const decision = world.decide('s');
    const created = decision.proposals.flatMap((p) => (p.type === 'TasksCreated' ? p.data.tasks.map((t) => t.slot) : []));
    expect(created).toEqual([2]);
  });

  it('given a global service, then a paused node keeps its task as it is, and the update completes over the others', () => {
    const spec = serviceSpec('agent', { kind: 'global' }, { update: { parallelism: 0, delayMs: 0, failureAction: 'pause', monitorMs: 0, maxFailureRatio: 0, order: 'stop-first' } });
    const world = new UpdateWorld(2).service('s', spec);
    world.pause('n2');
    world.update('s', image('2', spec));
    world.step('s');
    world.startAll().step('s');
    expect(running(world)).toEqual(['n1:nginx:2', 'n2:nginx:1.27']);
    expect(world.service$('s').updateStatus?.state).toBe('completed');
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
