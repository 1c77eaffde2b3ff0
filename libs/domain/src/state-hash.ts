/**
 * The canonical hash of a state: SHA-256 over every entity in canonical JSON, section
 * by section, ids sorted. Independent of Map order and of how the state was reached
 * (full replay, snapshot + tail), so two processes agree iff their states agree.
 * Derived indexes (reservations) are not hashed: they follow from the tasks.
 *
 * At 100,000 tasks the hash takes about a second, so it can also be taken in steps
 * (hashInSteps): the state's entries are captured at once, and hashed a slice at a time
 * while the caller goes on applying records. That is sound because evolve never changes
 * an entity in place — it puts a new object in the map — so the captured ones keep what
 * they held at the capture. At a million tasks the capture itself (a sorted copy of each
 * map) stops a process for seconds: a snapshot captures the state in steps too
 * (captureInSteps) and hashes it with hashCapturedInSteps, its sort in steps as well.
 */
import { TASK_DATA_NAMES } from '@shoal/contracts';
import type { ClusterState } from './state';
import { newSha256 } from './hash/sha256';
import { canonicalJson, canonicalJsonSharing } from './hash/canonical';
import { sortByKeyInSteps } from './snapshot-capture';
import type { CapturedMap, CapturedState } from './snapshot-capture';

type Section = readonly [name: string, entries: readonly (readonly [string, unknown])[]];
type Captured = { readonly cluster: unknown; readonly sections: readonly Section[] };

const byKey = <V>(map: ReadonlyMap<string, V>): [string, V][] => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * The sections the hash covers, in its order. Configs and secrets only when there are any:
 * a state without them hashes as it did before they existed.
 */
const hashedSections = (size: (name: CapturedMap) => number): readonly CapturedMap[] =>
  (['services', 'nodes', 'networks', 'configs', 'secrets', 'tasks', 'terms', 'writers'] as const).filter(
    (name) => (name !== 'configs' && name !== 'secrets') || size(name) > 0,
  );

/** Everything the hash covers, as it is now: sorted copies of each map's entries. */
const capture = (state: ClusterState): Captured => ({
  cluster: state.cluster ?? null,
  sections: hashedSections((name) => state[name].size).map((name): Section => [name, byKey(state[name] as ReadonlyMap<string, unknown>)]),
});

/** Text handed to the digest at least this much at a time: one call per entity cost more than the digest itself. */
const DIGEST_CHUNK = 1 << 16;

function* hashCaptured(captured: Captured, entitiesPerStep: number): Generator<void, string> {
  const digest = newSha256();
  let pending = '';
  const write = (text: string): void => {
    pending += text;
    if (pending.length < DIGEST_CHUNK) return;
    digest.update(pending);
    pending = '';
  };
  write(`cluster:${canonicalJson(captured.cluster)}\n`);
  // The tasks of a service share its spec object: its text is worked out once. A task's
  // fields are hashed under the names the state is written out with (TASK_DATA_NAMES).
  const specs = new Map<unknown, string>();
  let sinceStep = 0;
  for (const [name, entries] of captured.sections) {
    write(`${name}:${entries.length}\n`);
    const tasks = name === 'tasks';
    for (const [key, value] of entries) {
      const text = tasks ? canonicalJsonSharing(value as Record<string, unknown>, 'spec', specs, TASK_DATA_NAMES) : canonicalJson(value);
      write(`${JSON.stringify(key)}=${text}\n`);
      if (++sinceStep >= entitiesPerStep) {
        sinceStep = 0;
        yield;
      }
    }
  }
  digest.update(pending);
  return digest.hex();
}

/**
 * The state's hash as it is at this call, worked out a slice of `entitiesPerStep` entities
 * per `next()`; the generator's return value is the hash. The state may change between
 * steps (records applied by evolve) without changing the result.
 */
export const hashInSteps = (state: ClusterState, entitiesPerStep: number): Generator<void, string> => hashCaptured(capture(state), entitiesPerStep);

/** Map entries sorted per step, against entities hashed: moving one is ~1/50 of hashing one. */
const SORTED_PER_HASHED = 32;

/**
 * The hash of a captured state (captureInSteps), every step bounded: each section's
 * entries sorted `entitiesPerStep × SORTED_PER_HASHED` moves at a time, then hashed
 * `entitiesPerStep` entities a step. The same as stateHash of the state it was captured from.
 */
export function* hashCapturedInSteps(state: CapturedState, entitiesPerStep: number): Generator<void, string> {
  const sections: Section[] = [];
  for (const name of hashedSections((n) => state[n].length)) {
    sections.push([name, yield* sortByKeyInSteps<unknown>(state[name], entitiesPerStep * SORTED_PER_HASHED)]);
  }
  return yield* hashCaptured({ cluster: state.cluster ?? null, sections }, entitiesPerStep);
}

export const stateHash = (state: ClusterState): string => {
  const steps = hashCaptured(capture(state), Infinity);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
};
