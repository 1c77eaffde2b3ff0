/**
 * The differential harness: the same Engine API request sent to a Docker engine in swarm
 * mode and to Shoal, both over their unix sockets, answered side by side and compared after
 * `normalise` (the one declared place where expected differences are erased).
 */
import { differences } from './differences';
import { exchange } from './engine-http';
import type { Exchange } from './engine-http';
import { errorShape, normalise } from './normalise';

/** The API version both sides are asked at: Debian's engine speaks 1.41. */
export const API_VERSION = 'v1.41';

export interface SideBySide {
  readonly engine: Exchange;
  readonly shoal: Exchange;
}

export interface Comparison {
  /** Status codes, and error bodies by shape, that differ ([] when the same). */
  readonly status: string[];
  /** Every path where the normalised bodies differ. */
  readonly body: string[];
}

export class Differential {
  constructor(
    private readonly engineSocket: string,
    private readonly shoalSocket: string,
  ) {}

  /** `path` without the version prefix: `/services/create`. */
  async send(method: string, path: string, body?: unknown): Promise<SideBySide> {
    const versioned = `/${API_VERSION}${path}`;
    const [engine, shoal] = await Promise.all([exchange(this.engineSocket, method, versioned, body), exchange(this.shoalSocket, method, versioned, body)]);
    return { engine, shoal };
  }

  /** The same request to each side, with a body of its own (ids, versions differ by side). */
  async sendEach(method: string, paths: { readonly engine: string; readonly shoal: string }, body?: unknown): Promise<SideBySide> {
    const [engine, shoal] = await Promise.all([
      exchange(this.engineSocket, method, `/${API_VERSION}${paths.engine}`, body),
      exchange(this.shoalSocket, method, `/${API_VERSION}${paths.shoal}`, body),
    ]);
    return { engine, shoal };
  }

  /** The same request to each side, each with a body of its own (naming the side's own ids). */
  async sendEachWith(method: string, path: string, bodies: { readonly engine: unknown; readonly shoal: unknown }): Promise<SideBySide> {
    const versioned = `/${API_VERSION}${path}`;
    const [engine, shoal] = await Promise.all([exchange(this.engineSocket, method, versioned, bodies.engine), exchange(this.shoalSocket, method, versioned, bodies.shoal)]);
    return { engine, shoal };
  }

  /** A request to the engine alone: putting back what a test changed on it, removing what only it made. */
  engineOnly(method: string, path: string, body?: unknown): Promise<Exchange> {
    return exchange(this.engineSocket, method, `/${API_VERSION}${path}`, body);
  }

  /** A request to Shoal alone: putting back what a test changed there. */
  shoalOnly(method: string, path: string, body?: unknown): Promise<Exchange> {
    return exchange(this.shoalSocket, method, `/${API_VERSION}${path}`, body);
  }

  /** The sides compared: status codes, then bodies (errors by their shape). */
  static compare(answers: SideBySide): Comparison {
    const { engine, shoal } = answers;
    const failed = engine.status >= 400 || shoal.status >= 400;
    const status = engine.status === shoal.status ? [] : [`status: engine ${engine.status}, shoal ${shoal.status}`];
    const body = failed ? differences(errorShape(engine.body), errorShape(shoal.body)) : differences(normalise(engine.body), normalise(shoal.body));
    return { status, body };
  }
}
