/**
 * The canonical hash of a state: SHA-256 over every entity in canonical JSON, section
 * by section, ids sorted. Independent of Map order and of how the state was reached
 * (full replay, snapshot + tail), so two processes agree iff their states agree.
 * Derived indexes (reservations) are not hashed: they follow from the tasks.
 */
import type { ClusterState } from './state';
import { Sha256 } from './hash/sha256';
import { canonicalJson } from './hash/canonical';

const byKey = <K extends string, V>(map: ReadonlyMap<K, V>): [K, V][] =>
  [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export const stateHash = (state: ClusterState): string => {
  const hasher = new Sha256();
  hasher.update(`cluster:${canonicalJson(state.cluster ?? null)}\n`);
  const sections: [string, ReadonlyMap<string, unknown>][] = [
    ['services', state.services],
    ['nodes', state.nodes],
    ['networks', state.networks],
    ['tasks', state.tasks],
    ['terms', state.terms],
    ['writers', state.writers],
  ];
  for (const [name, map] of sections) {
    hasher.update(`${name}:${map.size}\n`);
    for (const [key, value] of byKey(map)) hasher.update(`${JSON.stringify(key)}=${canonicalJson(value)}\n`);
  }
  return hasher.hex();
};
