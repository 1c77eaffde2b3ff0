/**
 * Timers the agent's many small waits share. A node's heartbeat, a status batch, a
 * simulated task's run: thousands of them in one process ride on a single interval
 * rather than one Node timer each.
 */
import { shoalLogger } from '@shoal/runtime';

/** Cancels a scheduled callback; calling it after the callback ran does nothing. */
export type Cancel = () => void;

export interface Timers {
  /** Runs `callback` once, `delayMs` from now (never sooner). */
  after(delayMs: number, callback: () => void): Cancel;
}

/** A promise that resolves after `delayMs` on `timers`. */
export const sleep = (timers: Timers, delayMs: number): Promise<void> =>
  new Promise((resolve) => {
    timers.after(delayMs, resolve);
  });

interface Entry {
  callback: (() => void) | undefined;
}

/**
 * A timer wheel: callbacks are kept in slots of `resolutionMs`, and one interval, running
 * only while something is scheduled, fires each slot that has come due.
 */
export class TimerWheel implements Timers {
  private readonly slots = new Map<number, Entry[]>();
  private pending = 0;
  private interval: NodeJS.Timeout | undefined;
  private lastFired = 0;

  constructor(
    private readonly resolutionMs = 25,
    private readonly now: () => number = Date.now,
  ) {}

  after(delayMs: number, callback: () => void): Cancel {
    this.ensureRunning();
    const slot = Math.max(this.slotOf(this.now() + Math.max(0, delayMs)), this.lastFired + 1);
    const entry: Entry = { callback };
    const entries = this.slots.get(slot);
    if (entries) entries.push(entry);
    else this.slots.set(slot, [entry]);
    this.pending += 1;
    return () => {
      if (entry.callback === undefined) return;
      entry.callback = undefined;
      this.pending -= 1;
    };
  }

  /** Callbacks scheduled and not yet run or cancelled. */
  get size(): number {
    return this.pending;
  }

  private slotOf(time: number): number {
    return Math.ceil(time / this.resolutionMs);
  }

  private ensureRunning(): void {
    if (this.interval !== undefined) return;
    this.lastFired = Math.max(this.lastFired, Math.floor(this.now() / this.resolutionMs) - 1);
    this.interval = setInterval(() => this.tick(), this.resolutionMs);
  }

  private halt(): void {
    if (this.interval === undefined) return;
    clearInterval(this.interval);
    this.interval = undefined;
    this.slots.clear();
  }

  private tick(): void {
    const current = Math.floor(this.now() / this.resolutionMs);
    for (let slot = this.lastFired + 1; slot <= current; slot += 1) {
      this.lastFired = slot;
      const entries = this.slots.get(slot);
      if (!entries) continue;
      this.slots.delete(slot);
      for (const entry of entries) {
        const callback = entry.callback;
        if (callback === undefined) continue;
        entry.callback = undefined;
        this.pending -= 1;
        try {
          callback();
        } catch (error) {
          shoalLogger().error({ err: error }, 'a timer callback failed');
        }
      }
    }
    if (this.pending === 0) this.halt();
  }
}
