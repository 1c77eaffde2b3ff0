/**
 * A container's logs as the engine streams them (`GET /containers/{id}/logs` with
 * `timestamps`): each message begins with its time (RFC 3339, nanoseconds) and a space.
 * A container without a TTY multiplexes stdout and stderr in frames (an 8-byte header:
 * the stream, three zero bytes, the payload's length big-endian); one with a TTY sends
 * its output raw, as stdout. Each message goes to the task's output with its own time.
 */
import type { OutputStream, TaskOutput, WrittenAt } from '../executor';

const HEADER_BYTES = 8;
const STREAMS: Readonly<Record<number, OutputStream>> = { 1: 'stdout', 2: 'stderr' };

/**
 * "2026-11-25T23:30:01.123456789Z rest" → [its time, rest]: the engine's text of the time
 * kept whole (nanoseconds), and in ms since the epoch (a Date holds no more) to order and
 * choose lines by; a message without a time keeps it all, at undefined.
 */
export const splitTimestamp = (message: Buffer): [WrittenAt | undefined, Buffer] => {
  const space = message.indexOf(0x20);
  if (space <= 0 || space > 40) return [undefined, message];
  const time = message.subarray(0, space).toString('latin1');
  const at = Date.parse(time.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(at) ? [undefined, message] : [{ at, time }, message.subarray(space + 1)];
};

/** Reads a multiplexed (non-TTY) log stream into `output`, frame by frame. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly output: TaskOutput) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= HEADER_BYTES) {
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < HEADER_BYTES + size) return;
      const stream = STREAMS[this.pending[0]!] ?? 'stdout';
      const [at, data] = splitTimestamp(this.pending.subarray(HEADER_BYTES, HEADER_BYTES + size));
      this.pending = this.pending.subarray(HEADER_BYTES + size);
      if (data.length > 0) this.output.write(stream, data, at);
    }
  }
}

/** Reads a raw (TTY) log stream into `output` as stdout, line by line. */
export class RawReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly output: TaskOutput) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (let newline = this.pending.indexOf(0x0a); newline >= 0; newline = this.pending.indexOf(0x0a)) {
      const [at, data] = splitTimestamp(this.pending.subarray(0, newline + 1));
      this.pending = this.pending.subarray(newline + 1);
      this.output.write('stdout', data, at);
    }
  }

  /** What is left at the end of the stream, unfinished: a line of its own, at its time (as the task log ends an unfinished line). */
  end(): void {
    if (this.pending.length === 0) return;
    const [at, data] = splitTimestamp(this.pending);
    this.pending = Buffer.alloc(0);
    this.output.write('stdout', Buffer.concat([data, Buffer.from('\n')]), at);
  }
}
