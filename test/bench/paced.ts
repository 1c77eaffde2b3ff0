/** Calls spread evenly over time, as agents' heartbeats are: what the heartbeat benchmarks send with. */

/** How often the sender looks for calls due: about one a tick at 1,000 a second. */
const TICK_MS = 1;

/**
 * Calls `send(n)` for n = 0, 1, 2, … at `rate` a second for `seconds` (with no rate, only
 * waits), those due every TICK_MS; resolves with how many it sent.
 */
export const paced = async (rate: number, seconds: number, send: (n: number) => void): Promise<number> => {
  const started = Date.now();
  let sent = 0;
  while (Date.now() - started < seconds * 1_000) {
    const due = Math.floor(((Date.now() - started) / 1_000) * rate);
    for (; sent < due; sent++) send(sent);
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  return sent;
};
