import { performance } from 'node:perf_hooks';
import { runInSlices } from './in-slices';

/** Six steps of 4 ms of work each. */
function* steps(): Generator<void> {
  for (let i = 0; i < 6; i++) {
    const end = performance.now() + 4;
    while (performance.now() < end);
    yield;
  }
}

/** Counts the event loop's turns (setImmediate callbacks) until stopped. */
const turnCounter = () => {
  let turns = 0;
  let running = true;
  const turn = (): void => {
    if (!running) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  return {
    stop: (): number => {
      running = false;
      return turns;
    },
  };
};

describe('runInSlices', () => {
  it('lets the event loop turn once a slice has gone by, and tells how long each stretch without a turn lasted', async () => {
    const counter = turnCounter();
    const stretches: number[] = [];
    await runInSlices(steps(), 10, (ms) => stretches.push(ms));
    const turns = counter.stop();
    // 24 ms of work in slices of 10: at least one turn; every stretch but the last one ran
    // its slice out, and the loop turned after each of them.
    expect(stretches.length).toBeGreaterThanOrEqual(2);
    for (const ms of stretches.slice(0, -1)) expect(ms).toBeGreaterThanOrEqual(10);
    expect(turns).toBeGreaterThanOrEqual(stretches.length - 1);
  });

  it('runs every step without a turn when the slice is longer than all of them', async () => {
    const counter = turnCounter();
    const stretches: number[] = [];
    let ran = 0;
    await runInSlices(
      (function* () {
        for (const _ of steps()) yield ran++;
      })(),
      1_000,
      (ms) => stretches.push(ms),
    );
    expect(counter.stop()).toBe(0);
    expect(ran).toBe(6);
    expect(stretches).toHaveLength(1);
    expect(stretches[0]).toBeGreaterThanOrEqual(24);
  });
});
