import { startApi } from '../testing/api-harness';
import type { ApiHarness } from '../testing/api-harness';
import type { AuditPage } from './audit.service';

describe('the audit surface in the API', () => {
  let api: ApiHarness;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('answers over the socket and lists the cluster\'s first record', async () => {
    const res = await api.request('GET', '/shoal/v1/audit/events', { socket: true });
    expect(res.status).toBe(200);
    const page = res.body as AuditPage;
    expect(page.records.map((r) => [r.offset, r.type, r.verdict.status])).toEqual([[0, 'ClusterInitialized', 'applied']]);
  });

  it('answers a bad query parameter with 400 in Docker\'s error shape, naming the field', async () => {
    const res = await api.request('GET', '/shoal/v1/audit/events?limit=0', { socket: true });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toMatch(/limit: .*1 to 1000/);
  });

  it('needs a token over TCP', async () => {
    expect((await api.request('GET', '/shoal/v1/audit/verify')).status).toBe(401);
    const res = await api.request('GET', '/shoal/v1/audit/verify', { token: api.adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ agree: true, highWaterMark: 1 });
  });

  it('is listed in the OpenAPI document', async () => {
    const res = await api.request('GET', '/openapi.json', { socket: true });
    const document = res.body as { paths: Record<string, unknown>; components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    const paths = Object.keys(document.paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/shoal/v1/audit/events',
        '/shoal/v1/audit/state',
        '/shoal/v1/audit/tasks/{id}/history',
        '/shoal/v1/audit/verify',
        '/shoal/v1/tasks/{id}/explain',
      ]),
    );
    expect(Object.keys(document.components.schemas.AuditRecordDoc!.properties)).toEqual(expect.arrayContaining(['offset', 'verdict', 'type', 'data', 'raw']));
    expect(Object.keys(document.components.schemas.TaskExplanationDoc!.properties)).toEqual(expect.arrayContaining(['reason', 'explanation', 'placement']));
  });

  it('serves /readyz and /metrics beside it', async () => {
    const ready = await api.request('GET', '/readyz', { socket: true });
    expect(ready).toMatchObject({ status: 200, body: { ready: true, position: 1, highWaterMark: 1 } });
    const metrics = await api.request('GET', '/metrics', { token: api.adminToken });
    expect(metrics.status).toBe(200);
    expect(String(metrics.body)).toContain('shoal_records_total{view="api",verdict="applied"} 1');
  });
});
