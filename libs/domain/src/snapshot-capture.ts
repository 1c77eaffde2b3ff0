/**
 * A state captured a slice at a time while it goes on changing: what a snapshot needs of a
 * view of a million tasks without stopping the process that keeps the view.
 *
 * A state's maps are copied entry by entry (references only) along each map's own
 * iterator, a bounded number per step, and records go on being applied in between. What
 * makes the copy exactly the state at the capture's start:
 *
 * - evolve never changes an entity in place: it puts a new object in the map (or deletes
 *   the key), so an entity read at any time holds what it held when it was put there;
 * - a map changes only through its own `set`, `delete` and `clear`, and while a capture of
 *   it runs these are watched (own properties of that one map, put back when the capture
 *   ends): before the first write to a key the capture has not reached yet, the value the
 *   key had at the start is kept (or that it had none: a key added since, skipped when the
 *   iterator reaches it). A key deleted before the capture reaches it is reached at once,
 *   the copy running ahead to it, so it keeps its place in the map's order;
 * - a map's iterator goes on over a changing map in insertion order: keys present at the
 *   start keep their place when their value is replaced, and keys added since come after
 *   every one of them. So the copy has the start's entries in the start's order, which is
 *   what a snapshot writes and a restore rebuilds.
 *
 * The work of a delete that runs ahead is at most what copying the rest of the map would
 * cost at once (references only); a deleted key is usually an old task near the front,
 * already reached.
 */
import type { ClusterState } from './state';

/** The maps of a ClusterState a snapshot and the hash cover (`reserved` is derived from the tasks). */
export const CAPTURED_MAPS = ['services', 'nodes', 'networks', 'configs', 'secrets', 'tasks', 'terms', 'writers'] as const;
export type CapturedMap = (typeof CAPTURED_MAPS)[number];

export type Entry<V> = readonly [key: string, value: V];
type ValueOf<M> = M extends ReadonlyMap<string, infer V> ? V : never;

/** A state as it was at one moment: the cluster, and every map's entries in the map's order. */
export type CapturedState = { readonly cluster: ClusterState['cluster'] } & { readonly [M in CapturedMap]: readonly Entry<ValueOf<ClusterState[M]>>[] };

/** A key the map did not hold when the capture began. */
const ABSENT: unique symbol = Symbol('absent at the start of the capture');

type AnyMap = Map<string, unknown>;

/** One map copied as it was when the capture began, a slice at a time. */
class MapCapture {
  readonly entries: Entry<unknown>[] = [];
  done = false;
  private readonly live: Iterator<[string, unknown]>;
  /** The start's value of each key written since, that the copy had not reached when it was first written. */
  private readonly before = new Map<string, unknown>();
  /** Keys the copy has reached (each at most once: a key deleted and added again is met twice). */
  private readonly reached = new Set<string>();

  constructor(private readonly map: AnyMap) {
    this.live = map.entries();
  }

  /** Copies up to `count` more entries; true when the whole map is copied. */
  step(count: number): boolean {
    for (let i = 0; i < count && !this.done; i++) this.next();
    return this.done;
  }

  /** Told before `key` is set or deleted (`deleting`) in the map. */
  beforeWrite(key: string, deleting: boolean): void {
    if (this.done || this.reached.has(key)) return;
    const kept = this.before.has(key);
    if (kept ? this.before.get(key) === ABSENT : !this.map.has(key)) {
      // Not in the map at the start: never part of the copy.
      if (!kept) this.before.set(key, ABSENT);
    } else if (deleting) {
      // In the map at the start, still in its place (only a delete takes it out): reached
      // now, before it leaves the map's order.
      while (!this.done && !this.reached.has(key)) this.next();
    } else if (!kept) this.before.set(key, this.map.get(key));
  }

  /** Told before the map is cleared: everything not yet reached is reached now. */
  beforeClear(): void {
    while (!this.done) this.next();
  }

  private next(): void {
    const step = this.live.next();
    if (step.done) {
      this.done = true;
      this.before.clear();
      this.reached.clear();
      return;
    }
    const [key, now] = step.value;
    if (this.reached.has(key)) return;
    let value = now;
    if (this.before.has(key)) {
      value = this.before.get(key);
      if (value === ABSENT) return;
    }
    this.reached.add(key);
    this.entries.push([key, value]);
  }
}

/** The captures running on each map, and the map's own methods they stand in front of. */
const watched = new WeakMap<AnyMap, Set<MapCapture>>();

const watch = (map: AnyMap, capture: MapCapture): void => {
  let captures = watched.get(map);
  if (!captures) {
    const running = new Set<MapCapture>();
    captures = running;
    watched.set(map, running);
    const { set, delete: remove, clear } = Map.prototype;
    Object.defineProperties(map, {
      set: {
        configurable: true,
        writable: true,
        value(this: AnyMap, key: string, value: unknown) {
          for (const c of running) c.beforeWrite(key, false);
          return set.call(this, key, value);
        },
      },
      delete: {
        configurable: true,
        writable: true,
        value(this: AnyMap, key: string) {
          for (const c of running) c.beforeWrite(key, true);
          return remove.call(this, key);
        },
      },
      clear: {
        configurable: true,
        writable: true,
        value(this: AnyMap) {
          for (const c of running) c.beforeClear();
          clear.call(this);
        },
      },
    });
  }
  captures.add(capture);
};

const unwatch = (map: AnyMap, capture: MapCapture): void => {
  const captures = watched.get(map);
  if (!captures?.delete(capture) || captures.size > 0) return;
  watched.delete(map);
  // Removed in the reverse order of their definition: the map goes back to its own shape.
  const own = map as unknown as Record<string, unknown>;
  delete own.clear;
  delete own.delete;
  delete own.set;
};

/**
 * Captures `state` as it is at this call, `entriesPerStep` map entries per `next()` after
 * the first (which only begins: O(1)); the generator's value is the captured state. The
 * state may change between steps in any way evolve changes it without changing the result.
 * Run it to its end, or end it with `return()`: until then the state's maps are watched.
 */
export const captureInSteps = (state: ClusterState, entriesPerStep: number): Generator<void, CapturedState> => {
  const cluster = state.cluster;
  const captures = CAPTURED_MAPS.map((name) => [name, state[name] as AnyMap, new MapCapture(state[name] as AnyMap)] as const);
  for (const [, map, capture] of captures) watch(map, capture);
  const steps = (function* (): Generator<void, CapturedState> {
    try {
      yield; // begun: everything after this is read as it was here
      for (const [, , capture] of captures) {
        while (!capture.step(entriesPerStep)) yield;
      }
    } finally {
      for (const [, map, capture] of captures) unwatch(map, capture);
    }
    const captured: Record<string, unknown> = { cluster };
    for (const [name, , capture] of captures) captured[name] = capture.entries;
    return captured as CapturedState;
  })();
  steps.next();
  return steps;
};

/** The same as captureInSteps at once, for a caller that does not mind the stop. */
export const captureNow = (state: ClusterState): CapturedState => {
  const captured: Record<string, unknown> = { cluster: state.cluster };
  for (const name of CAPTURED_MAPS) captured[name] = [...(state[name] as AnyMap).entries()];
  return captured as CapturedState;
};

const byKey = (a: Entry<unknown>, b: Entry<unknown>): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** Entries sorted a run of this many at a time before the runs are merged. */
const RUN = 64;

/**
 * `entries` sorted by key, as `[...entries].sort(byKey)` gives them (keys are unique: no
 * order between equals to keep), worked out about `perStep` entries moved per `next()`: a
 * merge sort of runs, each pass over the entries in slices. `entries` is left as it is.
 */
export function* sortByKeyInSteps<V>(entries: readonly Entry<V>[], perStep: number): Generator<void, Entry<V>[]> {
  const n = entries.length;
  let src: Entry<V>[] = new Array<Entry<V>>(n);
  let work = 0;
  for (let start = 0; start < n; start += RUN) {
    const run = entries.slice(start, start + RUN).sort(byKey);
    for (let i = 0; i < run.length; i++) src[start + i] = run[i]!;
    work += run.length * 4;
    if (work >= perStep) {
      work = 0;
      yield;
    }
  }
  if (n <= RUN) return src;
  let dst: Entry<V>[] = new Array<Entry<V>>(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const middle = Math.min(left + width, n);
      const end = Math.min(left + 2 * width, n);
      let i = left;
      let j = middle;
      let out = left;
      while (out < end) {
        dst[out++] = j >= end || (i < middle && src[i]![0] < src[j]![0]) ? src[i++]! : src[j++]!;
        if (++work >= perStep) {
          work = 0;
          yield;
        }
      }
    }
    [src, dst] = [dst, src];
  }
  return src;
}
