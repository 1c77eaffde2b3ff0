import { TaskState } from './task-state';
import { decode, encode } from './codec';
import { upcast } from './upcasters';
import { EVENT_TYPES } from './events';
import { MAX_CONFIG_BYTES } from './config';

const envelope = (overrides: Record<string, unknown> = {}) => ({
  id: 'e1',
  type: 'ServiceRemoved',
  v: 1,
  cluster: 'c1',
  at: '2026-01-01T00:00:00.000Z',
  by: { component: 'api', instance: 'api-1', term: 0 },
  seq: 1,
  data: { id: 's1' },
  ...overrides,
});

describe('decode', () => {
  it('decodes a current record', () => {
    const decoded = decode(JSON.stringify(envelope()));
    expect(decoded.ok).toBe(true);
    expect(decoded.ok && decoded.event.data).toEqual({ id: 's1' });
  });

  it('reads a created task with or without its spec, and a bad spec still makes the record poison', () => {
    const created = (task: Record<string, unknown>) =>
      JSON.stringify(envelope({ type: 'TasksCreated', by: { component: 'orchestrator', instance: 'o-1', term: 0 }, data: { tasks: [{ id: 't1', serviceId: 's1', specVersion: 1, desiredState: TaskState.RUNNING, ...task }] } }));
    expect(decode(created({})).ok).toBe(true);
    expect(decode(created({ spec: { container: { image: 'nginx' } } })).ok).toBe(true);
    expect(decode(created({ spec: { container: { image: '' } } }))).toMatchObject({
      ok: false,
      reason: 'invalid TasksCreated: data.tasks[0].spec.container.image: expected a non-empty string',
    });
  });

  it('reads a config record only when its name, data and the specs using it are well formed', () => {
    const config = (spec: Record<string, unknown>) => JSON.stringify(envelope({ type: 'ConfigCreated', data: { id: 'c1', spec } }));
    const data = Buffer.from('port=8080\n').toString('base64');
    expect(decode(config({ name: 'app.conf-1', data })).ok).toBe(true);
    expect(decode(config({ name: '-app', data }))).toMatchObject({ ok: false, reason: expect.stringContaining('data.spec.name: expected a name of at most 64') });
    expect(decode(config({ name: 'a'.repeat(65), data })).ok).toBe(false);
    expect(decode(config({ name: 'app', data: 'not base64!' }))).toMatchObject({ ok: false, reason: 'invalid ConfigCreated: data.spec.data: expected base64' });
    const tooBig = Buffer.alloc(MAX_CONFIG_BYTES + 1).toString('base64');
    expect(decode(config({ name: 'app', data: tooBig }))).toMatchObject({ ok: false, reason: `invalid ConfigCreated: data.spec.data: more than ${MAX_CONFIG_BYTES} bytes` });
    expect(decode(config({ name: 'app', data: Buffer.alloc(MAX_CONFIG_BYTES).toString('base64') })).ok).toBe(true);

    const service = (configs: unknown) =>
      JSON.stringify(envelope({ type: 'ServiceCreated', data: { id: 's1', spec: { name: 'web', mode: { kind: 'replicated', replicas: 1 }, task: { container: { image: 'nginx', configs } } } } }));
    const file = { name: '/etc/app.conf', uid: '0', gid: '0', mode: 0o444 };
    expect(decode(service([{ configId: 'c1', configName: 'app', file }])).ok).toBe(true);
    expect(decode(service([{ configId: 'c1', configName: 'app', file: { ...file, mode: 0o10000 } }]))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('data.spec.task.container.configs[0].file.mode: expected permission bits'),
    });
    expect(decode(service([{ configName: 'app', file }])).ok).toBe(false);
  });

  it('reads the version a config update expects', () => {
    const update = (expect: unknown) =>
      JSON.stringify(envelope({ type: 'ConfigUpdated', expect, data: { id: 'c1', spec: { name: 'app', data: '' } } }));
    expect(decode(update({ configVersions: { c1: 2 } }))).toMatchObject({ ok: true, event: { expect: { configVersions: { c1: 2 } } } });
    expect(decode(update({ configVersions: { c1: 'two' } })).ok).toBe(false);
  });

  it('round-trips through encode', () => {
    const decoded = decode(JSON.stringify(envelope()));
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decode(encode(decoded.event))).toEqual(decoded);
  });

  it('upcasts an old TaskStatusesReported v1 record (state names) to v2 (ordered numbers)', () => {
    const old = envelope({
      type: 'TaskStatusesReported',
      v: 1,
      by: { component: 'dispatcher', instance: 'd-1', term: 0 },
      data: { nodeId: 'n1', statuses: [{ id: 't1', state: 'RUNNING', at: '2026-01-01T00:00:00.000Z' }] },
    });
    const decoded = decode(JSON.stringify(old));
    expect(decoded).toMatchObject({
      ok: true,
      upcastFrom: 1,
      event: { v: 2, data: { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING }] } },
    });
  });

  it.each([
    ['unparseable JSON', '{"id":', /^unparseable/],
    ['not an object', '[1,2]', /not an envelope/],
    ['an unknown type', JSON.stringify(envelope({ type: 'ServiceExploded' })), /unknown event type "ServiceExploded"/],
    ['a future version', JSON.stringify(envelope({ v: 9 })), /unknown version 9 of ServiceRemoved/],
    ['a missing field', JSON.stringify({ ...envelope(), cluster: undefined }), /bad envelope: cluster/],
    ['an unknown writer', JSON.stringify(envelope({ by: { component: 'x', instance: 'i', term: 0 } })), /by.component: expected one of/],
    ['data of the wrong shape', JSON.stringify(envelope({ data: { id: 7 } })), /invalid ServiceRemoved: data.id: expected a non-empty string/],
    ['missing data', JSON.stringify({ ...envelope(), data: undefined }), /data: missing/],
    [
      'an old record the upcaster cannot read',
      JSON.stringify(envelope({ type: 'TaskStatusesReported', v: 1, data: { nodeId: 'n', statuses: [{ id: 't', state: 'SLEEPING', at: 'x' }] } })),
      /unknown state "SLEEPING"/,
    ],
  ])('reports %s as poison, with the reason', (_what, raw, reason) => {
    const decoded = decode(raw);
    expect(decoded.ok).toBe(false);
    expect(!decoded.ok && decoded.reason).toMatch(reason);
  });
});

describe('upcast', () => {
  it('names the missing step when a chain has a gap', () => {
    expect(upcast('TaskStatusesReported', 1, {}, {})).toEqual({
      ok: false,
      reason: 'no upcaster for TaskStatusesReported v1 → v2',
    });
  });

  it('leaves current data alone', () => {
    const data = { id: 's1' };
    expect(upcast('ServiceRemoved', EVENT_TYPES.ServiceRemoved.v, data)).toEqual({ ok: true, data });
  });
});
