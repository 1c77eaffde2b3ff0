/**
 * Reads a request's JSON body, at most `limit` bytes and JSON_DEPTH_LIMIT levels deep; an
 * empty body is no body.
 */
import type { IncomingMessage } from 'node:http';
import { JSON_DEPTH_LIMIT, nestsDeeperThan, tooDeepMessage } from './json-depth';

export type BodyResult = { readonly ok: true; readonly body: unknown } | { readonly ok: false; readonly message: string };

export const readJsonBody = (req: IncomingMessage, limit: number): Promise<BodyResult> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyResult): void => {
      if (done) return;
      done = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        finish({ ok: false, message: `request body is larger than ${limit} bytes` });
        req.resume();
        return;
      }
      if (!done) chunks.push(chunk);
    });
    req.on('error', (error) => finish({ ok: false, message: `could not read the request body: ${error.message}` }));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return finish({ ok: true, body: undefined });
      try {
        const body = JSON.parse(text) as unknown;
        finish(nestsDeeperThan(body, JSON_DEPTH_LIMIT) ? { ok: false, message: tooDeepMessage(JSON_DEPTH_LIMIT) } : { ok: true, body });
      } catch (error) {
        finish({ ok: false, message: `malformed JSON in the request body: ${(error as Error).message}` });
      }
    });
  });
