import type { SecretReference, SecretSpec } from '@shoal/contracts';
import { EventBuilder, given, serviceSpec } from '@shoal/testing';
import { restoreSnapshot, takeSnapshot } from './snapshot';
import type { SnapshotStateData } from './snapshot';
import { emptyState } from './state';
import { stateHash } from './state-hash';

/** Stands for sealed bytes: evolve never opens them. */
const SEALED = { sealed: Buffer.alloc(40, 7).toString('base64') };
const reference = (secretId = 'x1', secretName = 'db-password'): SecretReference => ({
  secretId,
  secretName,
  file: { name: 'db-password', uid: '0', gid: '0', mode: 0o444 },
});

describe('evolve: secrets', () => {
  let b: EventBuilder;
  beforeEach(() => (b = new EventBuilder()));
  const spec = (name = 'db-password', labels?: Record<string, string>): SecretSpec => ({ name, ...(labels ? { labels } : {}) });
  const created = (id = 'x1', name = 'db-password') => b.event('SecretCreated', { id, spec: spec(name), data: SEALED });
  const usingSecret = (id = 's1', name = 'db', secrets = [reference()]) =>
    b.event('ServiceCreated', { id, spec: serviceSpec(name, undefined, { task: { container: { image: 'postgres:16', secrets } } }) });

  it('SecretCreated adds the secret, sealed, at version 1; a taken name or id is refused', () => {
    given()
      .when(created())
      .thenApplied((state) => expect(state.secrets.get('x1')).toMatchObject({ id: 'x1', version: 1, spec: { name: 'db-password' }, data: SEALED }));
    given(created('x1')).when(created('x2')).thenRejected(/secret db-password already exists/);
    given(created('x1')).when(created('x1', 'other')).thenRejected(/secret x1 already exists/);
  });

  it('SecretUpdated changes the labels and the version; the name is fixed; a stale version is refused', () => {
    given(created())
      .when(b.event('SecretUpdated', { id: 'x1', spec: spec('db-password', { rotated: 'no' }) }))
      .thenApplied((state) => expect(state.secrets.get('x1')).toMatchObject({ version: 2, spec: { labels: { rotated: 'no' } }, data: SEALED }));
    given(created()).when(b.event('SecretUpdated', { id: 'x1', spec: spec('renamed') })).thenRejected(/only updates to labels are allowed/);
    given().when(b.event('SecretUpdated', { id: 'x1', spec: spec() })).thenRejected(/secret x1 not found/);
    const relabel = (version: number) => b.event('SecretUpdated', { id: 'x1', spec: spec('db-password', { v: String(version) }) }, { expect: { secretVersions: { x1: version } } });
    given(created(), relabel(1)).when(relabel(1)).thenRejected(/update out of sequence: secret x1 is at version 2, not 1/);
  });

  it('SecretRemoved is refused while a service uses the secret, naming the services, and applies once none does', () => {
    given(created(), usingSecret('s1', 'db'), usingSecret('s2', 'replica'))
      .when(b.event('SecretRemoved', { id: 'x1' }))
      .thenRejected(/secret 'db-password' is in use by the following services: db, replica/);
    given(created(), usingSecret('s1', 'db'), b.event('ServiceRemoved', { id: 's1' }))
      .when(b.event('SecretRemoved', { id: 'x1' }))
      .thenApplied((state) => expect(state.secrets.size).toBe(0));
    given().when(b.event('SecretRemoved', { id: 'x1' })).thenRejected(/secret x1 not found/);
  });

  it('a service may only use secrets that exist, when created and when updated', () => {
    given().when(usingSecret()).thenRejected(/secret x1 not found/);
    given(created(), b.event('ServiceCreated', { id: 's1', spec: serviceSpec('db') }))
      .when(b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('db', undefined, { task: { container: { image: 'postgres:16', secrets: [reference('x9')] } } }) }))
      .thenRejected(/secret x9 not found/);
  });
});

describe('secrets in the hash and in snapshots', () => {
  const b = new EventBuilder();
  const records = [
    b.event('SecretCreated', { id: 'x1', spec: { name: 'db-password' }, data: SEALED }),
    b.event('ServiceCreated', { id: 's1', spec: serviceSpec('db', undefined, { task: { container: { image: 'postgres:16', secrets: [reference()] } } }) }),
  ];

  it('a state without secrets hashes as before secrets existed; a secret moves the hash', () => {
    const without = stateHash(emptyState());
    const withSecret = emptyState();
    withSecret.secrets.set('x1', { id: 'x1', spec: { name: 'db-password' }, data: SEALED, version: 1, createdAt: 't', updatedAt: 't' });
    expect(stateHash(withSecret)).not.toBe(without);
    expect(Object.keys(takeSnapshot(emptyState(), 0).state)).not.toContain('secrets');
  });

  it('a snapshot keeps the secrets (sealed), and one that lost them fails its hash check', () => {
    const { state } = given(...records);
    const snapshot = JSON.parse(JSON.stringify(takeSnapshot(state, 2))) as ReturnType<typeof takeSnapshot>;
    expect((snapshot.state as SnapshotStateData).secrets).toEqual([expect.objectContaining({ id: 'x1', data: SEALED })]);
    const restored = restoreSnapshot(snapshot);
    if (!restored.ok) throw new Error(restored.reason);
    expect(stateHash(restored.state)).toBe(stateHash(state));
    const { secrets: _dropped, ...withoutSecrets } = snapshot.state as SnapshotStateData;
    expect(restoreSnapshot({ ...snapshot, state: withoutSecrets })).toEqual({ ok: false, reason: expect.stringMatching(/snapshot hash mismatch/) });
  });
});
