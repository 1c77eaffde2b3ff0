/**
 * Task statuses of many sessions on their way to one dispatcher in one call
 * (UpdateTaskStatuses): every session's batch handed over in the same turn of the event
 * loop goes out together, at most `maxItems` statuses a call. A fleet of thousands of
 * nodes whose batches come due together makes one call, not thousands. Each session
 * hears how its own entry fared: taken; refused NOT_FOUND because the dispatcher no
 * longer knows its session (as UpdateTaskStatus would answer); or the call's error.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import type { UpdateTaskStatusRequest, UpdateTaskStatusesRequest, UpdateTaskStatusesResponse } from '@shoal/protocol';

/** Makes one UpdateTaskStatuses call, to be answered by `callback`. */
export type SendStatusesCall = (
  request: UpdateTaskStatusesRequest,
  deadline: number,
  callback: (error: ServiceError | null, response?: UpdateTaskStatusesResponse) => void,
) => void;

/** Most statuses in one call (as many as one TaskStatusesReported batch may hold). */
export const MAX_UPLINK_ITEMS = 10_000;

interface Entry {
  readonly request: UpdateTaskStatusRequest;
  readonly deadline: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** What a session whose entry the dispatcher did not take is told: as UpdateTaskStatus answers it. */
export const sessionUnknown = (sessionId: string): Error & { code: number; details: string } =>
  Object.assign(new Error(`session ${sessionId} not found`), { code: GrpcStatus.NOT_FOUND, details: 'session not found: it expired or was replaced; open a new session' });

export class StatusUplink {
  private queue: Entry[] = [];
  private scheduled = false;
  private callsMade = 0;

  constructor(
    private readonly call: SendStatusesCall,
    private readonly maxItems = MAX_UPLINK_ITEMS,
    private readonly defer: (run: () => void) => void = (run) => void setImmediate(run),
  ) {}

  /** Calls made so far. */
  get calls(): number {
    return this.callsMade;
  }

  /** Sends one session's statuses with those of the other sessions handed over in this turn. */
  send(request: UpdateTaskStatusRequest, deadline: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, deadline, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      this.defer(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    const queue = this.queue;
    this.queue = [];
    let entries: Entry[] = [];
    let items = 0;
    for (const entry of queue) {
      const size = entry.request.updates.length;
      if (entries.length > 0 && items + size > this.maxItems) {
        this.makeCall(entries);
        entries = [];
        items = 0;
      }
      entries.push(entry);
      items += size;
    }
    if (entries.length > 0) this.makeCall(entries);
  }

  private makeCall(entries: readonly Entry[]): void {
    let deadline = 0;
    for (const entry of entries) deadline = Math.max(deadline, entry.deadline);
    this.callsMade += 1;
    this.call({ sessions: entries.map((entry) => entry.request) }, deadline, (error, response) => {
      if (error) {
        for (const entry of entries) entry.reject(error);
        return;
      }
      const unknown = new Set(response?.unknownSessions ?? []);
      for (const entry of entries) {
        if (unknown.has(entry.request.sessionId)) entry.reject(sessionUnknown(entry.request.sessionId));
        else entry.resolve();
      }
    });
  }
}
