/**
 * A snapshot file in lines (file format 3), so that no part of writing or reading it is
 * one string of the whole state: at a million tasks that string is ~320 MiB, near V8's
 * longest (~512 MiB), and parsing it stops the process for seconds.
 *
 *   {"format":3,"offset":…,"hash":"…","state":{…}}    the header: the state's fields that are not lists
 *   ["tasks",[…1,000 items…]]                          each list, a chunk of items a line, in the state's order
 *   ["services",[]]                                    (an empty list: one line with none)
 *   {"sha256":"…"}                                     the SHA-256 of every byte before this line
 *
 * A reader takes the lines one at a time and the items of a list's lines in order; the
 * state it puts together is the one written, field for field. The last line lets a reader
 * tell a file that holds exactly what was written from one cut short or changed: a file
 * without it, or whose bytes do not give it, is not a snapshot.
 */
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import type { Snapshot } from '@shoal/domain';

export const SNAPSHOT_FILE_FORMAT = 3;
/** How a file in lines begins; a file of an older format (one JSON document) begins `{"offset":`. */
export const LINES_PREFIX = `{"format":${SNAPSHOT_FILE_FORMAT},`;

/** The header line's content. */
interface Header {
  readonly format: typeof SNAPSHOT_FILE_FORMAT;
  readonly offset: number;
  readonly hash: string;
  /** The state's fields that are not lists (its format, the cluster). */
  readonly state: Record<string, unknown>;
}

/**
 * The lines of `snapshot`'s file, each ending in a newline, `perLine` items of a list a
 * line, the digest line last.
 */
export function* snapshotLines(snapshot: Snapshot, perLine = 1_000): Generator<string> {
  const digest = createHash('sha256');
  const out = (line: string): string => {
    digest.update(line);
    return line;
  };
  const scalars: Record<string, unknown> = {};
  const lists: [string, readonly unknown[]][] = [];
  for (const [key, value] of Object.entries(snapshot.state)) {
    if (Array.isArray(value)) lists.push([key, value]);
    else if (value !== undefined) scalars[key] = value;
  }
  const header: Header = { format: SNAPSHOT_FILE_FORMAT, offset: snapshot.offset, hash: snapshot.hash, state: scalars };
  yield out(`${JSON.stringify(header)}\n`);
  for (const [key, items] of lists) {
    const name = JSON.stringify(key);
    if (items.length === 0) yield out(`[${name},[]]\n`);
    for (let i = 0; i < items.length; i += perLine) yield out(`[${name},${JSON.stringify(items.slice(i, i + perLine))}]\n`);
  }
  yield `${JSON.stringify({ sha256: digest.digest('hex') })}\n`;
}

/**
 * Puts a snapshot together from its file's lines, given one at a time as bytes (each with
 * its newline, or the last without). `done()` is the snapshot once the digest line has
 * come and matched every byte before it; it throws for a file that is not whole.
 */
export class SnapshotLineReader {
  private readonly digest: Hash = createHash('sha256');
  private header?: Header;
  private readonly lists = new Map<string, unknown[]>();
  private sealed?: string;

  /** Reads one line; throws on a line that does not fit the format. */
  line(bytes: Buffer): void {
    if (this.sealed !== undefined) throw new Error('a line after the digest');
    const text = bytes.toString('utf8');
    if (this.header === undefined) {
      const header = JSON.parse(text) as Header;
      if (header?.format !== SNAPSHOT_FILE_FORMAT || typeof header.offset !== 'number' || typeof header.hash !== 'string' || typeof header.state !== 'object' || header.state === null) {
        throw new Error('not the header of a snapshot in lines');
      }
      this.header = header;
      this.digest.update(bytes);
      return;
    }
    if (text.startsWith('{')) {
      const { sha256 } = JSON.parse(text) as { sha256?: unknown };
      if (typeof sha256 !== 'string') throw new Error('a line that is neither a list nor the digest');
      const computed = this.digest.digest('hex');
      if (computed !== sha256) throw new Error(`the file's bytes hash to ${computed}, not the ${sha256} written with them`);
      this.sealed = sha256;
      return;
    }
    this.digest.update(bytes);
    const [key, items] = JSON.parse(text) as [unknown, unknown];
    if (typeof key !== 'string' || !Array.isArray(items)) throw new Error('a list line that is not [name, items]');
    const list = this.lists.get(key);
    if (!list) this.lists.set(key, items);
    else for (const item of items) list.push(item);
  }

  /** The snapshot read; throws when the digest line has not come (a file cut short). */
  done(): Snapshot {
    if (this.header === undefined || this.sealed === undefined) throw new Error('the file ends before its digest');
    const state: Record<string, unknown> = { ...this.header.state };
    for (const [key, items] of this.lists) state[key] = items;
    // Built field by field: nothing in the file beyond offset, hash and state reaches the caller.
    return { offset: this.header.offset, hash: this.header.hash, state: state as unknown as Snapshot['state'] };
  }
}
