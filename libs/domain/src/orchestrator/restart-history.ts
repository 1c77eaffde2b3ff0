/**
 * Restart history: when each slot (replicated) or service-on-node (global) was restarted,
 * for the max-attempts rule. It is rebuilt from the log — every restart replacement is a
 * TasksCreated record — so it survives a restart of the orchestrator. A slot's history
 * starts over when the service's spec version changes, as SwarmKit's does.
 */
import type { SlotKey } from '../reaper/slots';

/** What the history holds of a slot, read-only. */
export interface HeldRestarts {
  readonly specVersion: number;
  readonly total: number;
  readonly times: readonly number[];
}

interface SlotHistory {
  specVersion: number;
  total: number;
  /** Creation times of the replacements (ms), oldest first; kept only when a window applies. */
  times: number[];
}

export class RestartHistory {
  private readonly slots = new Map<SlotKey, SlotHistory>();

  /** A restart replacement was created at `at` (ms) for `slot`, running `specVersion`. */
  record(slot: SlotKey, specVersion: number, at: number, windowMs: number): void {
    let history = this.slots.get(slot);
    if (!history || history.specVersion !== specVersion) {
      history = { specVersion, total: 0, times: [] };
      this.slots.set(slot, history);
    }
    history.total++;
    if (windowMs > 0) {
      history.times.push(at);
      // Entries older than the window can never count again: keep the list short.
      const cutoff = at - windowMs;
      let drop = 0;
      while (drop < history.times.length && (history.times[drop] ?? 0) <= cutoff) drop++;
      if (drop > 0) history.times.splice(0, drop);
    }
  }

  /**
   * How many restarts count against a task of `specVersion` that ended at `endedAt` (ms):
   * all of them without a window, else those in (endedAt − window, endedAt).
   */
  attempts(slot: SlotKey, specVersion: number, endedAt: number, windowMs: number): number {
    const history = this.slots.get(slot);
    if (!history || history.specVersion !== specVersion) return 0;
    if (windowMs <= 0) return history.total;
    const lookback = endedAt - windowMs;
    return history.times.filter((t) => t > lookback && t < endedAt).length;
  }

  /**
   * What the tasks still in the state say of a slot's restarts (`times`, ms, at
   * `specVersion`): kept unless the log already told more for that version.
   */
  seed(slot: SlotKey, specVersion: number, times: readonly number[]): void {
    const history = this.slots.get(slot);
    if (history && history.specVersion === specVersion && history.total >= times.length) return;
    this.slots.set(slot, { specVersion, total: times.length, times: [...times].sort((a, b) => a - b) });
  }

  forgetService(serviceId: string): void {
    for (const key of this.slots.keys()) {
      if (key.startsWith(`${serviceId}/`) || key.startsWith(`${serviceId}@`)) this.slots.delete(key);
    }
  }

  /** What it holds of `slot` (for specs and inspection: no decision reads it). */
  held(slot: SlotKey): HeldRestarts | undefined {
    return this.slots.get(slot);
  }

  get size(): number {
    return this.slots.size;
  }
}
