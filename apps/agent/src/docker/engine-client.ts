/**
 * A Docker Engine API client over the engine's unix socket (or TCP), with Node's own
 * HTTP client: JSON requests and answers, and the two streams an executor reads (the
 * event stream, a container's logs). The API version is pinned to 1.41 (Docker 20.10).
 * An answer of 400 or more rejects with an EngineError carrying the engine's message.
 */
import { request } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';

export const ENGINE_API_VERSION = '1.41';
export const DEFAULT_ENGINE = 'unix:///var/run/docker.sock';

/** Where an engine listens: a unix socket path, or a TCP host and port. */
export type EngineAddress = { readonly socketPath: string } | { readonly host: string; readonly port: number };

/** `unix:///var/run/docker.sock`, `/path/to.sock`, `tcp://127.0.0.1:2375` (or `http://…`) → where to connect; a clear error otherwise. */
export const parseEngineAddress = (text: string): EngineAddress => {
  const value = text.trim();
  if (value.startsWith('unix://')) {
    const socketPath = value.slice('unix://'.length);
    if (socketPath === '') throw new Error(`an engine address unix://PATH needs a path; got "${text}"`);
    return { socketPath };
  }
  if (value.startsWith('/')) return { socketPath: value };
  const tcp = /^(?:tcp|http):\/\/(\[[^\]]+\]|[^:/]+):(\d{1,5})\/?$/.exec(value);
  if (tcp && Number(tcp[2]) > 0 && Number(tcp[2]) < 65536) return { host: tcp[1]!.replace(/^\[|\]$/g, ''), port: Number(tcp[2]) };
  throw new Error(`an engine address is unix:///path/to/docker.sock or tcp://host:port; got "${text}"`);
};

/** The engine refused a request: its status code and its message. */
export class EngineError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

const queryString = (query: Query | undefined): string => {
  const pairs = Object.entries(query ?? {}).filter((pair): pair is [string, string | number | boolean] => pair[1] !== undefined);
  if (pairs.length === 0) return '';
  return `?${pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`).join('&')}`;
};

/** The body of an answer, read whole. */
const readAll = (response: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.once('end', () => resolve(Buffer.concat(chunks)));
    response.once('error', reject);
  });

/** The engine's message in an error answer (`{"message": …}`), else the body as text. */
const errorMessage = (body: Buffer, statusCode: number): string => {
  const text = body.toString('utf8').trim();
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: the text itself
  }
  return text || `the engine answered ${statusCode}`;
};

export class EngineClient {
  private readonly address: EngineAddress;

  constructor(readonly engine: string = DEFAULT_ENGINE) {
    this.address = parseEngineAddress(engine);
  }

  /** Sends one request; resolves with the answer once its headers are in (its body unread), rejects with the engine's error for 400 or more. */
  open(method: string, path: string, options: { query?: Query; body?: unknown; signal?: AbortSignal } = {}): Promise<IncomingMessage> {
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const target: RequestOptions = {
      ...('socketPath' in this.address ? { socketPath: this.address.socketPath } : { host: this.address.host, port: this.address.port }),
      method,
      path: `/v${ENGINE_API_VERSION}${path}${queryString(options.query)}`,
      headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {},
      ...(options.signal ? { signal: options.signal } : {}),
    };
    return new Promise((resolve, reject) => {
      const call = request(target, (response) => {
        const status = response.statusCode ?? 0;
        if (status < 400) return resolve(response);
        readAll(response).then((body) => reject(new EngineError(status, errorMessage(body, status))), reject);
      });
      call.once('error', (error) => reject(new Error(`the engine at ${this.engine} did not answer: ${error.message}`)));
      call.end(payload);
    });
  }

  /** One request whose answer is JSON (or empty: undefined). */
  async call<T>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
    const body = await readAll(await this.open(method, path, options));
    const text = body.toString('utf8').trim();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** The same, where a 404 means "there is none": undefined. */
  async find<T>(method: string, path: string, options: { query?: Query } = {}): Promise<T | undefined> {
    try {
      return await this.call<T>(method, path, options);
    } catch (error) {
      if (error instanceof EngineError && error.statusCode === 404) return undefined;
      throw error;
    }
  }
}

/**
 * Calls `onObject` with each JSON object of a stream of them (the event stream: one a
 * line). Resolves when the stream ends; a line that does not parse is skipped.
 */
export const readJsonLines = (stream: NodeJS.ReadableStream, onObject: (object: unknown) => void): Promise<void> =>
  new Promise((resolve, reject) => {
    let pending = '';
    stream.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
        const line = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (line === '') continue;
        let object: unknown;
        try {
          object = JSON.parse(line);
        } catch {
          continue;
        }
        onObject(object);
      }
    });
    stream.once('end', () => resolve());
    stream.once('close', () => resolve());
    stream.once('error', (error) => reject(error));
  });
