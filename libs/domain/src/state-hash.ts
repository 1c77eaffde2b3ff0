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
 * they held at the capture.
 */
import { TASK_DATA_NAMES } from '@shoal/contracts';
import type { ClusterState } from './state';
import { newSha256 } from './hash/sha256';
import { canonicalJson, canonicalJsonSharing } from './hash/canonical';

type Section = readonly [name: string, entries: readonly (readonly [string, unknown])[]];

const byKey = <V>(map: ReadonlyMap<string, V>): [string, V][] => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Everything the hash covers, as it is now: sorted copies of each map's entries. */
const capture = (state: ClusterState): { readonly cluster: unknown; readonly sections: readonly Section[] } => ({
  cluster: state.cluster ?? null,
  sections: [
    ['services', byKey(state.services)],
    ['nodes', byKey(state.nodes)],
    ['networks', byKey(state.networks)],
    // Only when there are any: a state without configs hashes as it did before they existed.
    ...(state.configs.size > 0 ? [['configs', byKey(state.configs)] as const] : []),
    ...(state.secrets.size > 0 ? [['secrets', byKey(state.secrets)] as const] : []),
    ['tasks', byKey(state.tasks)],
    ['terms', byKey(state.terms)],
    ['writers', byKey(state.writers)],
  ],
});

/** Text handed to the digest at least this much at a time: one call per entity cost more than the digest itself. */
const DIGEST_CHUNK = 1 << 16;

function* hashCaptured(captured: ReturnType<typeof capture>, entitiesPerStep: number): Generator<void, string> {
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

export const stateHash = (state: ClusterState): string => {
  const steps = hashCaptured(capture(state), Infinity);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
};
