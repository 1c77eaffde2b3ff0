/**
 * One HTTP exchange over a unix socket, kept as it came: status, headers and the body's
 * text. For answers that are not one JSON document (an event stream, a log stream, a
 * plain-text error) and for the headers a client negotiates by (`API-Version`).
 */
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';

export interface RawExchange {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export const rawExchange = (socketPath: string, method: string, path: string, timeoutMs = 30_000): Promise<RawExchange> =>
  new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers: { Host: 'docker' }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });

/** A body of JSON documents one a line (Docker's event stream), parsed. */
export const jsonLines = (body: Buffer): unknown[] =>
  body
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
