/**
 * The API at its edges: a body nested deeper than any spec, a method a path does not
 * serve, the log gone from under it. Each answer is a 4xx or a 503 that says what
 * happened, never a 500.
 */
import { JSON_DEPTH_LIMIT } from './http/json-depth';
import { startApi } from './testing/api-harness';
import type { ApiHarness } from './testing/api-harness';

const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('the API at its edges', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  describe('a body nested deeper than the limit', () => {
    it.each([
      ['/v1.47/services/create', 'a Docker route'],
      ['/shoal/v1/log-level', "Shoal's own surface"],
    ])('%s (%s): 400 naming the limit, nothing on the log', async (path) => {
      const before = await api.log.highWaterMark();
      for (const depth of [100_000, JSON_DEPTH_LIMIT]) {
        const answer = await api.request('POST', path, { socket: true, rawBody: `{"Name":"deep","Deep":${nested(depth)}}` });
        expect(answer).toMatchObject({ status: 400, body: { message: `the request body nests deeper than ${JSON_DEPTH_LIMIT} levels` } });
      }
      expect(await api.log.highWaterMark()).toBe(before);
    });

    it('at the limit, is read and validated as any other body', async () => {
      const answer = await api.request('POST', '/services/create', { socket: true, rawBody: `{"Name":"deep","Deep":${nested(JSON_DEPTH_LIMIT - 1)}}` });
      expect(answer).toMatchObject({ status: 400, body: { message: 'invalid TaskTemplate.ContainerSpec.Image: an image is required' } });
    });
  });

  describe('a method the path does not serve', () => {
    it("on Docker's routes: 404 as Docker's engine answers, naming the methods the path serves in Allow", async () => {
      const trace = await api.request('TRACE', '/v1.47/services', { socket: true });
      expect(trace).toMatchObject({ status: 404, body: { message: 'TRACE /v1.47/services: /services answers GET, HEAD' } });
      expect(trace.headers.allow).toBe('GET, HEAD');
      const put = await api.request('PUT', '/services/web', { socket: true, body: {} });
      expect(put).toMatchObject({ status: 404, body: { message: 'PUT /services/web: /services/web answers DELETE, GET, HEAD' } });
      expect(put.headers.allow).toBe('DELETE, GET, HEAD');
    });

    it("on Shoal's own surface: 405 with Allow", async () => {
      const trace = await api.request('TRACE', '/shoal/v1/log-level', { socket: true });
      expect(trace).toMatchObject({ status: 405, body: { message: 'TRACE /shoal/v1/log-level: /shoal/v1/log-level answers GET, HEAD, POST' } });
      expect(trace.headers.allow).toBe('GET, HEAD, POST');
    });

    it('an unknown path stays 404, with no Allow', async () => {
      const unknown = await api.request('TRACE', '/no/such/path', { socket: true });
      expect(unknown).toMatchObject({ status: 404, body: { message: expect.stringMatching(/^TRACE \/no\/such\/path is not served by Shoal/) } });
      expect(unknown.headers.allow).toBeUndefined();
      expect((await api.request('GET', '/shoal/v1/nothing', { socket: true })).status).toBe(404);
    });
  });
});

describe('the API when its log is unavailable', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('answers an intent 503 with Retry-After, saying the log is unavailable and nothing was applied, naming no address', async () => {
    await api.log.close();
    const answer = await api.request('POST', '/services/create', {
      socket: true,
      body: { Name: 'web', TaskTemplate: { ContainerSpec: { Image: 'nginx' } } },
    });
    expect(answer).toMatchObject({
      status: 503,
      body: { message: 'the event log is unavailable: the request was not applied; try again later' },
    });
    expect(answer.headers['retry-after']).toBe('5');
    expect(JSON.stringify(answer.body)).not.toContain(api.dataDir);
  });
});
