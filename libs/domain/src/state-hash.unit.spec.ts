import fc from 'fast-check';
import { taskData } from '@shoal/contracts';
import { histories } from '@shoal/testing';
import { replay } from './projection';
import { stateHash } from './state-hash';
import type { ClusterState } from './state';
import { canonicalJson } from './hash/canonical';
import { sha256 } from './hash/sha256';

const records = (values: readonly string[]) => values.map((value, offset) => ({ offset, value }));

/**
 * The hash as its definition reads: one text, every entity in canonical JSON (a task as
 * the state is written out, TaskData), section by section, ids sorted; one digest.
 */
const definition = (state: ClusterState): string => {
  const sorted = <V>(map: ReadonlyMap<string, V>) => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const sections: [string, [string, unknown][]][] = [
    ['services', sorted(state.services)],
    ['nodes', sorted(state.nodes)],
    ['networks', sorted(state.networks)],
    // Configs only when there are any, so states from before configs keep their hashes.
    ...(state.configs.size > 0 ? [['configs', sorted(state.configs)] as [string, [string, unknown][]]] : []),
    ['tasks', sorted(state.tasks).map(([id, task]): [string, unknown] => [id, taskData(task)])],
    ['terms', sorted(state.terms)],
    ['writers', sorted(state.writers)],
  ];
  let text = `cluster:${canonicalJson(state.cluster ?? null)}\n`;
  for (const [name, entries] of sections) {
    text += `${name}:${entries.length}\n`;
    for (const [key, value] of entries) text += `${JSON.stringify(key)}=${canonicalJson(value)}\n`;
  }
  return sha256(text);
};

describe('the state hash', () => {
  it('is what its definition says, however the digest is fed and whatever the tasks share', () => {
    fc.assert(
      fc.property(histories(), (log) => {
        const { state } = replay(records(log));
        expect(stateHash(state)).toBe(definition(state));
      }),
      { numRuns: 150 },
    );
  });

  it('is what its definition says for a state whose text spans many pieces given to the digest', () => {
    const { state } = replay(records([]));
    const spec = { container: { image: 'registry.local/app:1.0', env: ['MODE=prod'] } };
    for (let i = 0; i < 3_000; i++) {
      state.tasks.set(`t${i}`, { id: `t${i}`, serviceId: 's', slot: i, specVersion: 1, spec, desiredState: 512, createdAt: '2026-01-01T00:00:00.000Z', status: { state: 0, at: '2026-01-01T00:00:00.000Z' } } as never);
    }
    expect(stateHash(state)).toBe(definition(state));
  });
});
