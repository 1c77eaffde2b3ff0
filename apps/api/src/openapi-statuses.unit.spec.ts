/**
 * The OpenAPI document names every status the API can answer each operation with: the
 * refusals of the verdict-code table for every write, the log unavailable (503) and a bad
 * body (400) where they can happen, 404 where a path names something, 500 everywhere.
 */
import { REFUSAL_STATUSES } from './intents/verdict-answer';
import { startApi } from './testing/api-harness';
import type { ApiHarness } from './testing/api-harness';

interface Operation {
  readonly responses?: Record<string, { readonly description?: string }>;
  readonly parameters?: readonly { readonly in: string; readonly name?: string }[];
  readonly requestBody?: unknown;
}

const WRITES = new Set(['post', 'put', 'delete']);

/** What the API's error mapping can answer `method path` with. */
const expectedStatuses = (method: string, path: string, operation: Operation): number[] => {
  const statuses = new Set<number>([500]);
  if (WRITES.has(method)) for (const status of [...REFUSAL_STATUSES, 400, 503]) statuses.add(status);
  if (operation.requestBody) statuses.add(400);
  if (path.includes('{')) statuses.add(404);
  if ((operation.parameters ?? []).some((parameter) => parameter.in === 'query')) statuses.add(400);
  return [...statuses].sort();
};

describe('the OpenAPI document', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('declares, for every operation, each status the API can answer it with', async () => {
    const doc = (await api.request('GET', '/openapi.json', { socket: true })).body as { paths: Record<string, Record<string, Operation>> };
    const missing: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const declared = new Set(Object.keys(operation.responses ?? {}).map(Number));
        const absent = expectedStatuses(method, path, operation).filter((status) => !declared.has(status));
        if (absent.length > 0) missing.push(`${method.toUpperCase()} ${path}: ${absent.join(', ')}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('declares every parameter a path names, the 400 of an id it checks, and the statuses of Docker\'s own refusals', async () => {
    const doc = (await api.request('GET', '/openapi.json', { socket: true })).body as { paths: Record<string, Record<string, Operation>> };
    const undeclared: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      const named = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
      for (const [method, operation] of Object.entries(operations)) {
        const declared = new Set((operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name));
        for (const name of named.filter((each) => !declared.has(each))) undeclared.push(`${method.toUpperCase()} ${path}: ${name}`);
      }
    }
    expect(undeclared).toEqual([]);
    // An id that is not one is refused with 400 naming the field, as the document says.
    for (const path of ['/shoal/v1/tasks/{id}/explain', '/shoal/v1/audit/tasks/{id}/history']) {
      expect(Object.keys(doc.paths[path]!.get!.responses ?? {})).toContain('400');
      expect(doc.paths[path]!.get!.parameters).toContainEqual(expect.objectContaining({ name: 'id', schema: expect.objectContaining({ pattern: expect.any(String) }) }));
      const answer = await api.request('GET', path.replace('{id}', '%20x'), { socket: true });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ message: expect.stringMatching(/\bid\b: must be an id/) });
    }
    // A pre-defined network's name is refused with Docker's 403, and the document says so.
    expect(Object.keys(doc.paths['/networks/create']!.post!.responses ?? {})).toEqual(expect.arrayContaining(['201', '403']));
    // Docker's /distribution/{image} answers 501, and says so.
    expect(Object.keys(doc.paths['/distribution/{image}']!.get!.responses ?? {})).toContain('501');
  });

  it("describes each error in Docker's shape", async () => {
    const doc = (await api.request('GET', '/openapi.json', { socket: true })).body as { paths: Record<string, Record<string, Operation & { responses: Record<string, { content?: unknown }> }>> };
    const services = doc.paths['/services/create']!.post!.responses;
    expect(services['503']).toMatchObject({ description: expect.stringMatching(/log is unavailable/) });
    expect(services['409']).toMatchObject({ content: { 'application/json': { schema: { properties: { message: { type: 'string' } } } } } });
  });
});
