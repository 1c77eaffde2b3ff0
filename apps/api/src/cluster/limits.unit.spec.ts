/** Admission limits over HTTP: the whole API in this process on an embedded log. */
import { DEFAULT_ADMISSION_LIMITS } from '@shoal/contracts';
import { startApi } from '../testing/api-harness';
import type { ApiHarness } from '../testing/api-harness';

const service = (name: string, replicas: number) => ({ Name: name, TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' } }, Mode: { Replicated: { Replicas: replicas } } });

describe('admission limits over HTTP', () => {
  let api: ApiHarness;
  beforeEach(async () => {
    api = await startApi();
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
});
