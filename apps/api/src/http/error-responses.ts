/**
 * The error answers of every operation in the OpenAPI document, added where a controller
 * did not describe them itself: the refusals of the verdict-code table (400, 404, 409, 503)
 * and the log unavailable (503, Retry-After) for every write, a bad body or query (400),
 * 404 where a path names something, 500 everywhere. Each in Docker's error shape.
 */
import type { OpenAPIObject } from '@nestjs/swagger';
import { DOCKER_ERROR_SCHEMA } from '../audit/audit-responses';
import { REFUSAL_STATUSES } from '../intents/verdict-answer';
import { JSON_DEPTH_LIMIT } from './json-depth';
import { MAX_BODY_BYTES } from './http-pipeline';
import { RETRY_AFTER_SECONDS } from './log-unavailable-answer';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;

const DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: `Bad input: malformed JSON, a body larger than ${MAX_BODY_BYTES} bytes or nested deeper than ${JSON_DEPTH_LIMIT} levels, an invalid field or filter, or a write evolve refuses as invalid`,
  404: 'No such object (on a write: evolve found it gone)',
  409: 'Update out of sequence (the ?version= read is stale), or the name or id is already in use',
  500: 'An unexpected error',
  503: `The event log is unavailable (Retry-After: ${RETRY_AFTER_SECONDS}; the message says whether the request was applied), or this node is not a swarm manager yet, or already part of a swarm`,
};

const WRITES = new Set(['post', 'put', 'delete', 'patch']);

/** The statuses the API's error mapping can answer this operation with. */
export const errorStatuses = (method: string, path: string, operation: Operation): number[] => {
  const statuses = new Set<number>([500]);
  if (WRITES.has(method)) for (const status of [...REFUSAL_STATUSES, 400, 503]) statuses.add(status);
  if (operation.requestBody) statuses.add(400);
  if (path.includes('{')) statuses.add(404);
  if ((operation.parameters ?? []).some((parameter) => 'in' in parameter && parameter.in === 'query')) statuses.add(400);
  return [...statuses].sort();
};

const errorResponse = (status: number): Operation['responses'][string] => ({
  description: DESCRIPTIONS[status] ?? 'An error',
  content: { 'application/json': { schema: DOCKER_ERROR_SCHEMA } },
  ...(status === 503 ? { headers: { 'Retry-After': { description: 'Seconds to wait when the log is unavailable', schema: { type: 'integer' } } } } : {}),
});

/** The document with each operation's missing error answers added (those it describes stay). */
export const withErrorResponses = (document: OpenAPIObject): OpenAPIObject => {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item) as [string, Operation | undefined][]) {
      if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
      for (const status of errorStatuses(method, path, operation)) operation.responses[String(status)] ??= errorResponse(status);
    }
  }
  return document;
};
