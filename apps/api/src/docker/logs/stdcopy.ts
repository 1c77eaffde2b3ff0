/**
 * Docker's multiplexed stream (moby's stdcopy): each frame is an 8-byte header — the
 * stream (1 stdout, 2 stderr, 3 an error of the daemon's own), three zero bytes, the
 * payload's length as a big-endian uint32 — then the payload. The docker CLI's StdCopy
 * splits the body back into stdout and stderr, and stops with "error from daemon in
 * stream" at a system-error frame.
 */
export const STDOUT = 1;
export const STDERR = 2;
export const SYSTEM_ERROR = 3;

export type StdStream = typeof STDOUT | typeof STDERR | typeof SYSTEM_ERROR;

export const HEADER_BYTES = 8;

/** Content-Type of a multiplexed body (API 1.42 and later) and of a raw one (older clients, and TTYs). */
export const MULTIPLEXED_STREAM = 'application/vnd.docker.multiplexed-stream';
export const RAW_STREAM = 'application/vnd.docker.raw-stream';

export const frame = (stream: StdStream, payload: Uint8Array | string): Buffer => {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const header = Buffer.alloc(HEADER_BYTES);
  header[0] = stream;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
};

/** A daemon error in the stream, as moby writes a log error: "Error grabbing logs: <why>\n". */
export const systemErrorFrame = (why: string): Buffer => frame(SYSTEM_ERROR, `Error grabbing logs: ${why}\n`);
