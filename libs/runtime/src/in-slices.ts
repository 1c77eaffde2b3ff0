/**
 * Work in steps that must not hold the event loop: the steps run one after another, and
 * once `sliceMs` have gone by since the loop last turned, the loop turns before the next.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Runs `steps` to their end, letting the event loop turn whenever `sliceMs` have gone by;
 * `onSlice` is told how long each stretch without a turn lasted, the last one included.
 */
export const runInSlices = async (steps: Iterable<unknown>, sliceMs: number, onSlice?: (ms: number) => void): Promise<void> => {
  let sliceStarted = performance.now();
  for (const _ of steps) {
    const ms = performance.now() - sliceStarted;
    if (ms < sliceMs) continue;
    onSlice?.(ms);
    await nextTurn();
    sliceStarted = performance.now();
  }
  onSlice?.(performance.now() - sliceStarted);
};
