import fc from 'fast-check';
import { TaskState, isTerminal, taskStateName } from '@shoal/contracts';
import type { TaskController, TaskExit } from './executor';
import { TaskRunner } from './task-runner';
import { StatusRecorder, assignedTask } from './testing/task-fixtures';

/** A controller whose every step waits until the spec settles it. */
class ScriptedController implements TaskController {
  readonly pending: { step: string; resolve: (value?: unknown) => void; reject: (error: Error) => void }[] = [];
  stops = 0;
  private wait$ = (step: string) => new Promise<never>((resolve, reject) => this.pending.push({ step, resolve: resolve as (value?: unknown) => void, reject }));
  prepare = (): Promise<void> => this.wait$('prepare');
  start = (): Promise<void> => this.wait$('start');
  wait = (): Promise<TaskExit> => this.wait$('wait');
  stop = async (): Promise<void> => {
    this.stops += 1;
  };
  /** The stops there had been when remove came: it must come after the task is stopped. */
  removedAfterStops: number[] = [];
  remove = async (): Promise<void> => {
    this.removedAfterStops.push(this.stops);
  };
}

type Action = { kind: 'succeed'; exitCode: number } | { kind: 'fail' } | { kind: 'desire'; state: TaskState };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('succeed' as const), exitCode: fc.constantFrom(0, 0, 1, 137) }),
  fc.constant({ kind: 'fail' as const }),
  fc.record({ kind: fc.constant('desire' as const), state: fc.constantFrom<TaskState>(TaskState.READY, TaskState.RUNNING, TaskState.COMPLETE, TaskState.SHUTDOWN, TaskState.REMOVE) }),
);

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the task runner', () => {
  it('reports states that only move forward, starting at ACCEPTED and ending in exactly one terminal state, whatever happens', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<TaskState>(TaskState.READY, TaskState.RUNNING, TaskState.SHUTDOWN),
        fc.array(action, { maxLength: 12 }),
        async (initial, actions) => {
          const recorder = new StatusRecorder();
          const controller = new ScriptedController();
          const runner = new TaskRunner(assignedTask({}), initial, controller, recorder.sink);
          await settle();
          for (const next of actions) {
            if (next.kind === 'desire') runner.setDesired(next.state);
            else {
              const step = controller.pending.shift();
              if (next.kind === 'fail') step?.reject(new Error(`${step.step} broke`));
              else step?.resolve(step.step === 'wait' ? { exitCode: next.exitCode } : undefined);
            }
            await settle();
          }
          // Whatever is left: the managers want it gone.
          runner.setDesired(TaskState.SHUTDOWN);
          await runner.done;
          const states = recorder.statuses.map((status) => status.state);
          expect(states[0]).toBe(TaskState.ACCEPTED);
          for (let i = 1; i < states.length; i += 1) expect(states[i]!).toBeGreaterThan(states[i - 1]!);
          expect(states.filter((state) => isTerminal(state))).toHaveLength(1);
          expect(isTerminal(states.at(-1)!)).toBe(true);
          // Stopped only if it was still going, never twice.
          expect(controller.stops).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('removing a task stops it first, then has its controller clean up, once', async () => {
    const recorder = new StatusRecorder();
    const controller = new ScriptedController();
    const runner = new TaskRunner(assignedTask({}), TaskState.RUNNING, controller, recorder.sink);
    await settle();
    controller.pending.shift()?.resolve();
    await settle();
    await runner.remove();
    expect(recorder.states().at(-1)).toBe('SHUTDOWN');
    expect(controller.removedAfterStops).toEqual([1]);
  });

  it('a failing prepare or start rejects the task with the error; a failing wait fails it; each keeps the message of the step it failed in, as SwarmKit', async () => {
    for (const [failAt, expected, message] of [
      [0, TaskState.REJECTED, 'preparing'],
      [1, TaskState.REJECTED, 'starting'],
      [2, TaskState.FAILED, 'started'],
    ] as const) {
      const recorder = new StatusRecorder();
      const controller = new ScriptedController();
      const runner = new TaskRunner(assignedTask({}), TaskState.RUNNING, controller, recorder.sink);
      for (let step = 0; step < failAt; step += 1) {
        await settle();
        controller.pending.shift()?.resolve();
      }
      await settle();
      controller.pending.shift()?.reject(new Error('it broke'));
      await runner.done;
      expect(recorder.statuses.at(-1)).toMatchObject({ state: expected, err: 'it broke', message });
    }
  });

  it('a task that exits non-zero is FAILED with its exit code, keeping the message `started`', async () => {
    const recorder = new StatusRecorder();
    const controller = new ScriptedController();
    const runner = new TaskRunner(assignedTask({}), TaskState.RUNNING, controller, recorder.sink);
    for (const step of ['prepare', 'start', 'wait']) {
      await settle();
      controller.pending.shift()?.resolve(step === 'wait' ? { exitCode: 3 } : undefined);
    }
    await runner.done;
    expect(recorder.statuses.at(-1)).toMatchObject({ state: TaskState.FAILED, message: 'started', err: 'task exited with code 3', exitCode: 3 });
  });

  it("each state's message is SwarmKit's: accepted, preparing, prepared, starting, started, finished; shutdown when stopped", async () => {
    const recorder = new StatusRecorder();
    const controller = new ScriptedController();
    const runner = new TaskRunner(assignedTask({}), TaskState.RUNNING, controller, recorder.sink);
    for (const step of ['prepare', 'start', 'wait']) {
      await settle();
      const pending = controller.pending.shift();
      expect(pending?.step).toBe(step);
      pending?.resolve(step === 'wait' ? { exitCode: 0 } : undefined);
    }
    await runner.done;
    expect(recorder.statuses.map((status) => [taskStateName(status.state), status.message])).toEqual([
      ['ACCEPTED', 'accepted'],
      ['PREPARING', 'preparing'],
      ['READY', 'prepared'],
      ['STARTING', 'starting'],
      ['RUNNING', 'started'],
      ['COMPLETE', 'finished'],
    ]);
    const stopped = new StatusRecorder();
    const held = new TaskRunner(assignedTask({}), TaskState.RUNNING, new ScriptedController(), stopped.sink);
    await settle();
    await held.stop();
    expect(stopped.statuses.at(-1)).toMatchObject({ state: TaskState.SHUTDOWN, message: 'shutdown' });
  });
});
