/**
 * The log could not be reached: closed, or its broker unreachable or not answering. Every
 * adapter throws this for it, so a caller tells an outage from any other failure at one
 * place. `written` says what an append that failed so did to the log: `no` when nothing
 * was sent (the log was closed before it), `unknown` when the records may have reached it
 * (a request sent and then timed out or cut off: the broker may have written the batch).
 */
export type WrittenWhenUnavailable = 'no' | 'unknown';

export class LogUnavailableError extends Error {
  constructor(
    message: string,
    readonly written: WrittenWhenUnavailable,
  ) {
    super(message);
    this.name = 'LogUnavailableError';
  }
}
