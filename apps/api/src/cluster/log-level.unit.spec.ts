/** GET/POST /shoal/v1/log-level over HTTP: the whole API in this process on an embedded log. */
import { LOG_LEVEL } from '@shoal/contracts';
import { startApi } from '../testing/api-harness';
import type { ApiHarness } from '../testing/api-harness';

describe('/shoal/v1/log-level', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('says the log is at level 1, what this build reads, and what each owner reads', async () => {
    const res = await api.request('GET', '/shoal/v1/log-level', { socket: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ level: 1, reads: LOG_LEVEL, owners: expect.any(Object) });
  });

  it('refuses a level this API\'s build does not read, and writes nothing', async () => {
    const before = await api.log.highWaterMark();
    const res = await api.request('POST', '/shoal/v1/log-level', { socket: true, body: { level: LOG_LEVEL + 1 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: `this API's build reads up to log level ${LOG_LEVEL}: run a build that reads level ${LOG_LEVEL + 1} here first` });
    expect(await api.log.highWaterMark()).toBe(before);
  });

  it('starts a cluster that docker swarm init makes at this build\'s level', async () => {
    const fresh = await startApi({ initialized: false });
    try {
      expect((await fresh.request('POST', '/swarm/init', { socket: true, body: {} })).status).toBe(200);
      expect((await fresh.request('GET', '/shoal/v1/log-level', { socket: true })).body).toMatchObject({ level: LOG_LEVEL, reads: LOG_LEVEL });
    } finally {
      await fresh.close();
    }
  });

  it('refuses a body that is not a level, naming the field', async () => {
    const res = await api.request('POST', '/shoal/v1/log-level', { socket: true, body: { level: 'two' } });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toMatch(/level/);
    const low = await api.request('POST', '/shoal/v1/log-level', { socket: true, body: { level: 1 } });
    expect(low.status).toBe(400);
    expect((low.body as { message: string }).message).toMatch(/level.*must be at least 2/);
  });
});
