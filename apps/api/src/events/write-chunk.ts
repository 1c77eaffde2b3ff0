/** Writing a stream's chunks to an HTTP response, waiting while the client is slow. */
import type { Writable } from 'node:stream';

/**
 * Writes `chunk`; resolves at once when the response takes it, else when it drains or
 * closes — and then removes the listener it no longer needs, so a long stream to a slow
 * client does not pile up listeners.
 */
export const writeChunk = (out: Writable, chunk: string | Uint8Array): Promise<void> =>
  new Promise<void>((resolve) => {
    if (out.write(chunk)) return resolve();
    const done = (): void => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
