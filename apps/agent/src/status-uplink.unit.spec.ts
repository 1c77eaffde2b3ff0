import { status as GrpcStatus } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { TaskState } from '@shoal/contracts';
import type { TaskStatusMessage, UpdateTaskStatusesRequest, UpdateTaskStatusesResponse } from '@shoal/protocol';
import { StatusUplink } from './status-uplink';

const statusOf = (taskId: string): TaskStatusMessage => ({ taskId, state: TaskState.RUNNING, at: '2026-01-01T00:00:00.000Z', message: '', err: '', hasExitCode: false, exitCode: 0 });
const entry = (session: string, ...tasks: string[]) => ({ nodeId: `node-of-${session}`, sessionId: session, updates: tasks.map(statusOf) });

type Answer = (error: ServiceError | null, response?: UpdateTaskStatusesResponse) => void;

/** An uplink over a recorded call, turned by hand. */
const uplinkOver = (maxItems?: number) => {
  const calls: { request: UpdateTaskStatusesRequest; deadline: number; answer: Answer }[] = [];
  let turn: (() => void) | undefined;
  const uplink = new StatusUplink((request, deadline, answer) => void calls.push({ request, deadline, answer }), maxItems, (run) => (turn = run));
  const endTurn = (): void => {
    const run = turn;
    turn = undefined;
    run?.();
  };
  return { uplink, calls, endTurn };
};

const settled = async <T>(promise: Promise<T>): Promise<'resolved' | Error> =>
  promise.then(
    () => 'resolved' as const,
    (error: Error) => error,
  );

describe('the status uplink', () => {
  it("sends every session's statuses handed over in one turn as one call, each with its own session, and the latest deadline", async () => {
    const { uplink, calls, endTurn } = uplinkOver();
    const sent = [uplink.send(entry('s1', 'a', 'b'), 1_000), uplink.send(entry('s2', 'c'), 3_000), uplink.send(entry('s3', 'd'), 2_000)];
    expect(calls).toHaveLength(0);
    endTurn();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.request.sessions.map((s) => [s.sessionId, s.updates.map((u) => u.taskId)])).toEqual([
      ['s1', ['a', 'b']],
      ['s2', ['c']],
      ['s3', ['d']],
    ]);
    expect(calls[0]!.deadline).toBe(3_000);
    calls[0]!.answer(null, { unknownSessions: [] });
    expect(await Promise.all(sent.map(settled))).toEqual(['resolved', 'resolved', 'resolved']);
    expect(uplink.calls).toBe(1);

    const later = uplink.send(entry('s1', 'e'), 1_000);
    endTurn();
    expect(calls).toHaveLength(2);
    calls[1]!.answer(null, { unknownSessions: [] });
    await later;
  });

  it('tells a session the dispatcher did not know NOT_FOUND, and the others that they were taken', async () => {
    const { uplink, calls, endTurn } = uplinkOver();
    const kept = uplink.send(entry('s1', 'a'), 1_000);
    const gone = uplink.send(entry('s2', 'b'), 1_000);
    endTurn();
    calls[0]!.answer(null, { unknownSessions: ['s2'] });
    expect(await settled(kept)).toBe('resolved');
    expect(await settled(gone)).toMatchObject({ code: GrpcStatus.NOT_FOUND, details: expect.stringMatching(/open a new session/) });
  });

  it("fails every session's statuses with the call's error when the call fails", async () => {
    const { uplink, calls, endTurn } = uplinkOver();
    const sent = [uplink.send(entry('s1', 'a'), 1_000), uplink.send(entry('s2', 'b'), 1_000)];
    endTurn();
    const unavailable = Object.assign(new Error('14 UNAVAILABLE'), { code: GrpcStatus.UNAVAILABLE, details: 'gone', metadata: undefined }) as unknown as ServiceError;
    calls[0]!.answer(unavailable);
    expect(await Promise.all(sent.map(settled))).toEqual([unavailable, unavailable]);
  });

  it('splits a turn into calls of at most maxItems statuses, never splitting a session', async () => {
    const { uplink, calls, endTurn } = uplinkOver(4);
    const sent = [uplink.send(entry('s1', 'a', 'b', 'c'), 1), uplink.send(entry('s2', 'd', 'e'), 1), uplink.send(entry('s3', 'f', 'g'), 1), uplink.send(entry('s4', 'h', 'i', 'j', 'k', 'l'), 1)];
    endTurn();
    expect(calls.map((call) => call.request.sessions.map((s) => s.sessionId))).toEqual([['s1'], ['s2', 's3'], ['s4']]);
    for (const call of calls) call.answer(null, { unknownSessions: [] });
    expect(await Promise.all(sent.map(settled))).toEqual(['resolved', 'resolved', 'resolved', 'resolved']);
  });
});
