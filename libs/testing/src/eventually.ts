/**
 * Waiting in tests for something that happens on its own time (a runner catching up with
 * the log, a process answering): poll a probe until it has an answer, or fail saying what
 * never came.
 */
export interface EventuallyOptions {
  /** How long to wait before failing (default one minute). */
  readonly timeoutMs?: number;
  /** How long to sleep between probes (default 50 ms). */
  readonly everyMs?: number;
  /** What to say about the world when time runs out (default nothing). */
  readonly explain?: () => unknown;
}

/** A probe answers `undefined` or `false` for "not yet", anything else for "here it is". */
export type Probe<T> = () => T | undefined | false | Promise<T | undefined | false>;

/**
 * Polls `probe` until it answers (not `undefined`, not `false`) and returns that answer;
 * throws "timed out … waiting until <what>" after `timeoutMs`. A number for `options` is
 * the time limit.
 */
export const eventually = async <T>(what: string, probe: Probe<T>, options: EventuallyOptions | number = {}): Promise<T> => {
  const { timeoutMs = 60_000, everyMs = 50, explain } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await probe();
    if (answer !== undefined && answer !== false) return answer;
    if (Date.now() > deadline) {
      const seen = explain ? `: ${JSON.stringify(explain())}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
};
