/**
 * Work in steps (a core's reconcileInSteps) taken by hand, a few steps at a time, so that a
 * spec can change the state between them.
 */
export interface Stepper {
  /** Takes up to `count` steps (Infinity: to the end). */
  step(count: number): void;
  /** The steps taken so far. */
  readonly taken: number;
}

export const stepper = (steps: Iterable<unknown>): Stepper => {
  const iterator = steps[Symbol.iterator]();
  let taken = 0;
  return {
    step(count: number): void {
      for (let i = 0; i < count && !iterator.next().done; i++) taken++;
    },
    get taken(): number {
      return taken;
    },
  };
};
