/** Admission limits over HTTP: the whole API in this process on an embedded log. */
import { DEFAULT_ADMISSION_LIMITS } from '@shoal/contracts';
import { startApi } from '../testing/api-harness';
import type { ApiHarness } from '../testing/api-harness';

const AUDITOR = 'auditor-token-0123456789abcdef';
const service = (name: string, replicas: number) => ({ Name: name, TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' } }, Mode: { Replicated: { Replicas: replicas } } });

describe('admission limits over HTTP', () => {
  let api: ApiHarness;
  beforeEach(async () => {
    api = await startApi({ tokens: [{ token: AUDITOR, role: 'auditor', name: 'audit' }] });
  });
  afterEach(() => api.close());
  const call = (method: string, path: string, body?: unknown) => api.request(method, path, { socket: true, ...(body === undefined ? {} : { body }) });

  it('refuses a billion replicas with 400 in Docker\'s shape, and writes nothing', async () => {
    const before = await api.log.highWaterMark();
    const answer = await call('POST', '/services/create', service('huge', 1_000_000_000));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ message: "replicas 1000000000 is over the cluster's limit of 100000 (maxReplicasPerService; GET/PUT /shoal/v1/cluster/limits)" });
    expect(await api.log.highWaterMark()).toBe(before);
    expect(api.view.state.services.size).toBe(0);
  });

  it('reads and changes the limits, on the log, and holds services to them', async () => {
    expect((await call('GET', '/shoal/v1/cluster/limits')).body).toEqual(DEFAULT_ADMISSION_LIMITS);
    const changed = await call('PUT', '/shoal/v1/cluster/limits', { maxReplicasPerService: 3 });
    expect(changed).toMatchObject({ status: 200, body: { ...DEFAULT_ADMISSION_LIMITS, maxReplicasPerService: 3 } });
    expect(api.view.state.cluster?.spec.limits).toEqual({ maxReplicasPerService: 3 });
    expect((await call('POST', '/services/create', service('web', 3))).status).toBe(201);
    expect(await call('POST', '/services/create', service('api', 4))).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^replicas 4 is over the cluster's limit of 3/) } });
  });

  it('refuses a limit that is not a positive integer, naming the field, and writes nothing', async () => {
    const before = await api.log.highWaterMark();
    const answer = await call('PUT', '/shoal/v1/cluster/limits', { maxTasks: 0, maxServices: 'many' });
    expect(answer.status).toBe(400);
    expect((answer.body as { message: string }).message).toMatch(/maxTasks: must be a positive integer/);
    expect((answer.body as { message: string }).message).toMatch(/maxServices: must be a positive integer/);
    expect(await api.log.highWaterMark()).toBe(before);
  });

  it('keeps the limits through docker swarm update, which knows nothing of them', async () => {
    await call('PUT', '/shoal/v1/cluster/limits', { maxServices: 7 });
    const swarm = (await call('GET', '/swarm')).body as { Version: { Index: number }; Spec: Record<string, unknown> };
    const updated = await call('POST', `/swarm/update?version=${swarm.Version.Index}`, { ...swarm.Spec, Labels: { team: 'blue' } });
    expect(updated.status).toBe(200);
    expect(api.view.state.cluster?.spec.labels).toEqual({ team: 'blue' });
    expect((await call('GET', '/shoal/v1/cluster/limits')).body).toMatchObject({ maxServices: 7 });
  });

  it('refuses replicas past a safe integer as it decodes them (Docker\'s uint64 is wider than a JSON number stays exact), writing nothing', async () => {
    const before = await api.log.highWaterMark();
    const pastExact = 'invalid Mode.Replicated.Replicas: 9007199254740992 is past the largest integer Shoal keeps exact (9007199254740991)';
    const cases = [
      // Past a uint64: Go refuses it too, in these words.
      ['1e20', 'json: cannot unmarshal number 100000000000000000000 into Go struct field ReplicatedService.Mode.Replicated.Replicas of type uint64'],
      // A uint64 to Go, but not exact as a JSON number here: refused rather than rounded.
      ['18446744073709551615', pastExact.replace('9007199254740992 is', '18446744073709552000 is')],
      ['9007199254740992', pastExact],
    ] as const;
    for (const [replicas, message] of cases) {
      const rawBody = `{"Name":"wide","TaskTemplate":{"ContainerSpec":{"Image":"nginx:1.27"}},"Mode":{"Replicated":{"Replicas":${replicas}}}}`;
      const answer = await api.request('POST', '/services/create', { socket: true, rawBody });
      expect({ replicas, ...answer }).toMatchObject({ replicas, status: 400, body: { message } });
    }
    expect(await api.log.highWaterMark()).toBe(before);
  });

  it('refuses an update to a billion replicas, and writes nothing', async () => {
    const created = await call('POST', '/services/create', service('web', 2));
    const id = (created.body as { ID: string }).ID;
    const before = await api.log.highWaterMark();
    const answer = await call('POST', `/services/${id}/update?version=1`, service('web', 1_000_000_000));
    expect(answer).toEqual(expect.objectContaining({ status: 400, body: { message: "replicas 1000000000 is over the cluster's limit of 100000 (maxReplicasPerService; GET/PUT /shoal/v1/cluster/limits)" } }));
    expect(await api.log.highWaterMark()).toBe(before);
  });

  it('lets an auditor read the limits and not change them', async () => {
    expect(await api.request('GET', '/shoal/v1/cluster/limits', { token: AUDITOR })).toMatchObject({ status: 200, body: DEFAULT_ADMISSION_LIMITS });
    const before = await api.log.highWaterMark();
    expect(await api.request('PUT', '/shoal/v1/cluster/limits', { token: AUDITOR, body: { maxTasks: 10 } })).toMatchObject({ status: 403, body: { message: expect.stringMatching(/role auditor/) } });
    expect(await api.log.highWaterMark()).toBe(before);
  });
});
