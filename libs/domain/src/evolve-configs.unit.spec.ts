import { createHash } from 'node:crypto';
import type { ConfigReference, ConfigSpec } from '@shoal/contracts';
import { EventBuilder, given, serviceSpec } from '@shoal/testing';
import { restoreSnapshot, takeSnapshot } from './snapshot';
import type { SnapshotStateData } from './snapshot';
import { emptyState } from './state';
import { stateHash } from './state-hash';

const data = (text: string): string => Buffer.from(text).toString('base64');
const reference = (configId = 'c1', configName = 'app-conf'): ConfigReference => ({
  configId,
  configName,
  file: { name: '/etc/app.conf', uid: '0', gid: '0', mode: 0o444 },
});

describe('evolve: configs', () => {
  let b: EventBuilder;
  beforeEach(() => (b = new EventBuilder()));
  const spec = (name = 'app-conf', labels?: Record<string, string>): ConfigSpec => ({ name, data: data('port=8080\n'), ...(labels ? { labels } : {}) });
  const created = (id = 'c1', name = 'app-conf') => b.event('ConfigCreated', { id, spec: spec(name) });
  const usingConfig = (id = 's1', name = 'web', configs = [reference()]) =>
    b.event('ServiceCreated', { id, spec: serviceSpec(name, undefined, { task: { container: { image: 'nginx:1.27', configs } } }) });

  it('ConfigCreated adds the config at version 1', () => {
    given()
      .when(created())
      .thenApplied((state) => expect(state.configs.get('c1')).toMatchObject({ id: 'c1', version: 1, spec: { name: 'app-conf', data: data('port=8080\n') } }));
  });

  it('ConfigCreated with a taken name or id is refused', () => {
    given(created('c1')).when(created('c2')).thenRejected(/config app-conf already exists/);
    given(created('c1')).when(created('c1', 'other')).thenRejected(/config c1 already exists/);
  });

  it('ConfigUpdated changes the labels and the version, and nothing else may change', () => {
    given(created())
      .when(b.event('ConfigUpdated', { id: 'c1', spec: spec('app-conf', { env: 'prod' }) }))
      .thenApplied((state) => expect(state.configs.get('c1')).toMatchObject({ version: 2, spec: { labels: { env: 'prod' } } }));
    given(created())
      .when(b.event('ConfigUpdated', { id: 'c1', spec: { ...spec(), data: data('port=9090\n') } }))
      .thenRejected(/only updates to labels are allowed/);
    given(created()).when(b.event('ConfigUpdated', { id: 'c1', spec: spec('renamed') })).thenRejected(/only updates to labels are allowed/);
    given().when(b.event('ConfigUpdated', { id: 'c1', spec: spec() })).thenRejected(/config c1 not found/);
  });

  it('ConfigUpdated out of sequence is refused (the version the writer read)', () => {
    const relabel = (version: number) => b.event('ConfigUpdated', { id: 'c1', spec: spec('app-conf', { v: String(version) }) }, { expect: { configVersions: { c1: version } } });
    given(created(), relabel(1)).when(relabel(1)).thenRejected(/update out of sequence: config c1 is at version 2, not 1/);
    given(created(), relabel(1)).when(relabel(2)).thenApplied((state) => expect(state.configs.get('c1')?.version).toBe(3));
  });

  it('ConfigRemoved is refused while a service uses the config, naming the services, and applies once none does', () => {
    given(created(), usingConfig('s1', 'web'), usingConfig('s2', 'api'))
      .when(b.event('ConfigRemoved', { id: 'c1' }))
      .thenRejected(/config 'app-conf' is in use by the following services: web, api/);
    given(created(), usingConfig('s1', 'web'), b.event('ServiceRemoved', { id: 's1' }))
      .when(b.event('ConfigRemoved', { id: 'c1' }))
      .thenApplied((state) => expect(state.configs.size).toBe(0));
    given().when(b.event('ConfigRemoved', { id: 'c1' })).thenRejected(/config c1 not found/);
  });

  it('a service may only use configs that exist, when created and when updated', () => {
    given().when(usingConfig()).thenRejected(/config c1 not found/);
    given(created())
      .when(usingConfig('s1', 'web', [reference('c1'), reference('c9', 'gone')]))
      .thenRejected(/config c9 not found/);
    given(created(), b.event('ServiceCreated', { id: 's1', spec: serviceSpec('web') }))
      .when(b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('web', undefined, { task: { container: { image: 'nginx:1.27', configs: [reference('c9')] } } }) }))
      .thenRejected(/config c9 not found/);
  });

  it('a rollback may return to a spec whose config has gone since, as SwarmKit allows', () => {
    const plain = serviceSpec('web');
    const withConfig = serviceSpec('web', undefined, { task: { container: { image: 'nginx:1.27', configs: [reference()] } } });
    given(
      created(),
      b.event('ServiceCreated', { id: 's1', spec: withConfig }),
      b.event('ServiceUpdated', { id: 's1', spec: plain }),
      b.event('ConfigRemoved', { id: 'c1' }),
    )
      .when(b.event('ServiceUpdated', { id: 's1', spec: withConfig, rollback: true }))
      .thenApplied((state) => expect(state.services.get('s1')?.spec).toEqual(withConfig));
  });
});

describe('configs in the hash and in snapshots', () => {
  const b = new EventBuilder();
  const records = [
    b.event('ConfigCreated', { id: 'c1', spec: { name: 'app-conf', data: data('a=1\n') } }),
    b.event('ServiceCreated', { id: 's1', spec: serviceSpec('web', undefined, { task: { container: { image: 'nginx:1.27', configs: [reference()] } } }) }),
  ];

  it('a state without configs hashes as it did before configs existed; a config moves the hash', () => {
    // The text the hash covered before configs: no configs section at all.
    const before = createHash('sha256').update('cluster:null\nservices:0\nnodes:0\nnetworks:0\ntasks:0\nterms:0\nwriters:0\n').digest('hex');
    expect(stateHash(emptyState())).toBe(before);
    const withConfig = emptyState();
    withConfig.configs.set('c1', { id: 'c1', spec: { name: 'app-conf', data: data('a=1\n') }, version: 1, createdAt: 't', updatedAt: 't' });
    expect(stateHash(withConfig)).not.toBe(before);
  });

  it('a snapshot keeps the configs, and one that lost them (as an older reader would) fails its hash check', () => {
    const { state } = given(...records);
    const snapshot = JSON.parse(JSON.stringify(takeSnapshot(state, 2))) as ReturnType<typeof takeSnapshot>;
    expect((snapshot.state as SnapshotStateData).configs).toHaveLength(1);
    const restored = restoreSnapshot(snapshot);
    if (!restored.ok) throw new Error(restored.reason);
    expect(restored.state.configs.get('c1')?.spec.name).toBe('app-conf');
    expect(stateHash(restored.state)).toBe(stateHash(state));

    const { configs: _dropped, ...withoutConfigs } = snapshot.state as SnapshotStateData;
    const lost = restoreSnapshot({ ...snapshot, state: withoutConfigs });
    expect(lost).toEqual({ ok: false, reason: expect.stringMatching(/snapshot hash mismatch/) });
  });

  it('a snapshot of a state without configs writes no configs field, as before', () => {
    const snapshot = takeSnapshot(emptyState(), 0);
    expect(Object.keys(snapshot.state)).not.toContain('configs');
  });
});
