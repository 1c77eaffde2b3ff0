/**
 * One HTTP exchange with an Engine API over its unix socket (Shoal's or a Docker engine's):
 * the status, the body parsed as JSON when it is JSON, and the content type.
 */
import { request } from 'node:http';

export interface Exchange {
  readonly status: number;
  readonly body: unknown;
  readonly contentType: string;
}

/** `unix:///run/docker.sock` or a bare path → the socket path. */
export const socketPathOf = (address: string): string => {
  if (address.startsWith('unix://')) return address.slice('unix://'.length);
  if (address.startsWith('/')) return address;
  throw new Error(`not a unix socket address: ${address} (expected unix:///path/to/docker.sock)`);
};

export const exchange = (socketPath: string, method: string, path: string, body?: unknown): Promise<Exchange> =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = request(
      {
        socketPath,
        method,
        path,
        headers: { Host: 'docker', ...(payload !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}) },
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const contentType = String(res.headers['content-type'] ?? '');
          let parsed: unknown = text;
          if (text.trim() !== '' && contentType.includes('json')) parsed = JSON.parse(text) as unknown;
          resolve({ status: res.statusCode ?? 0, body: parsed, contentType });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
