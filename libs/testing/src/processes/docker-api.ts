/**
 * A small client for Docker's Engine API over a unix socket (Shoal's API socket), for
 * end-to-end tests that talk to Shoal the way the docker CLI does.
 */
import { request } from 'node:http';

export interface DockerAnswer<T = unknown> {
  readonly status: number;
  readonly body: T;
}

export const dockerApi = <T = unknown>(socketPath: string, method: string, path: string, body?: unknown): Promise<DockerAnswer<T>> =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { socketPath, method, path, headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as T });
        });
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
