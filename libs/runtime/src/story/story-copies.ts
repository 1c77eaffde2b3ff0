/**
 * Copies of the indexed records, beside the story index (`<index dir>/records/`), so that a
 * story of records scattered over the whole log reads a few local files instead of the
 * broker once a record (a Kafka fetch names one offset a partition and brings back the whole
 * batch that holds it: a service's 944 records were 944 fetches).
 *
 *   records/<first>-<end>.bin   the records at offsets first … end − 1 (16 digits each):
 *                               end − first + 1 little-endian uint32 positions, then each
 *                               record at its position: its key's length (uint32), its key,
 *                               its value deflated (raw); an empty entry where the log holds
 *                               no record
 *
 * The copies are a cache, never an authority: each one read is checked against the digest
 * the index took of the log's record (digests.bin, itself checked against the manifest),
 * and one that is missing, unreadable or not the record indexed is read from the log
 * instead (storyRecords). A file is written whole and renamed into place; a build continues
 * the last one when it is short, by writing it again longer.
 */
import { mkdir, open, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { LogRecord } from '@shoal/eventlog';

/** Records a file holds at most: a story reads the few positions it needs from each. */
export const RECORDS_PER_FILE = 4_096;
const FOLDER = 'records';
const FILE = /^(\d{16})-(\d{16})\.bin$/;
const POSITION_BYTES = 4;

interface CopyFile {
  readonly first: number;
  readonly end: number;
  readonly name: string;
}

const fileName = (first: number, end: number): string => `${String(first).padStart(16, '0')}-${String(end).padStart(16, '0')}.bin`;

/** The copy files in `indexDir`, by first offset, then end. */
const listCopies = async (indexDir: string): Promise<CopyFile[]> => {
  let names: string[];
  try {
    names = await readdir(join(indexDir, FOLDER));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: CopyFile[] = [];
  for (const name of names) {
    const match = FILE.exec(name);
    if (match) files.push({ first: Number(match[1]), end: Number(match[2]), name });
  }
  return files.sort((a, b) => a.first - b.first || a.end - b.end);
};

const encodeEntry = (record: LogRecord): Buffer => {
  const key = Buffer.from(record.key, 'utf8');
  const value = deflateRawSync(Buffer.from(record.value, 'utf8'), { level: constants.Z_BEST_SPEED });
  const length = Buffer.allocUnsafe(4);
  length.writeUInt32LE(key.length);
  return Buffer.concat([length, key, value]);
};

const decodeEntry = (offset: number, entry: Buffer): LogRecord => {
  const keyLength = entry.readUInt32LE(0);
  if (4 + keyLength > entry.length) throw new Error(`the copy of offset ${offset} is cut short`);
  return {
    offset,
    key: entry.toString('utf8', 4, 4 + keyLength),
    value: inflateRawSync(entry.subarray(4 + keyLength)).toString('utf8'),
  };
};

/** A file's bytes from its entries (undefined: no record at that offset). */
const fileBytes = (entries: readonly (Buffer | undefined)[]): Buffer => {
  const header = Buffer.allocUnsafe((entries.length + 1) * POSITION_BYTES);
  let position = header.length;
  for (const [i, entry] of entries.entries()) {
    header.writeUInt32LE(position, i * POSITION_BYTES);
    position += entry?.length ?? 0;
  }
  header.writeUInt32LE(position, entries.length * POSITION_BYTES);
  return Buffer.concat([header, ...entries.filter((entry): entry is Buffer => entry !== undefined)]);
};

/** A file's entries as written, each checked to lie inside the file; an error when one does not. */
const fileEntries = (file: CopyFile, bytes: Buffer): (Buffer | undefined)[] => {
  const count = file.end - file.first;
  const positions = (count + 1) * POSITION_BYTES;
  if (bytes.length < positions) throw new Error(`${file.name} is shorter than its positions`);
  const entries: (Buffer | undefined)[] = [];
  for (let i = 0; i < count; i++) {
    const start = bytes.readUInt32LE(i * POSITION_BYTES);
    const end = bytes.readUInt32LE((i + 1) * POSITION_BYTES);
    if (start < positions || end < start || end > bytes.length) throw new Error(`${file.name}: entry ${i} lies outside the file`);
    entries.push(end > start ? bytes.subarray(start, end) : undefined);
  }
  return entries;
};

/**
 * Writes the copies of a build's records, in offset order, from `from` on. Opened at 0,
 * every copy in the folder is dropped first (a build from offset 0 may be of another log);
 * opened further on, the copies of offsets at or after `from` are dropped (a build that
 * wrote copies and stopped before its manifest), and the last file, when short, is
 * continued. Close it before the manifest that covers its records is written.
 */
export class RecordCopiesWriter {
  private constructor(
    private readonly folder: string,
    private first: number,
    private entries: (Buffer | undefined)[],
    /** The file these entries continue, removed once they are written longer. */
    private continues: string | undefined,
  ) {}

  static async open(indexDir: string, from: number): Promise<RecordCopiesWriter> {
    const folder = join(indexDir, FOLDER);
    if (from === 0) await rm(folder, { recursive: true, force: true });
    await mkdir(folder, { recursive: true });
    // Past what the index covers (a build that stopped before its manifest), or an older,
    // shorter write of a file continued since: dropped.
    const kept: CopyFile[] = [];
    for (const file of await listCopies(indexDir)) {
      const previous = kept[kept.length - 1];
      if (file.first >= from) await rm(join(folder, file.name), { force: true });
      else if (previous?.first === file.first) {
        await rm(join(folder, previous.name), { force: true });
        kept[kept.length - 1] = file;
      } else kept.push(file);
    }
    const last = kept[kept.length - 1];
    // The last, when short or past `from`, continued (it then holds no more than a file does).
    if (last && from - last.first < RECORDS_PER_FILE && (last.end > from || last.end - last.first < RECORDS_PER_FILE)) {
      try {
        const entries = fileEntries(last, await readFile(join(folder, last.name))).slice(0, from - last.first);
        while (entries.length < from - last.first) entries.push(undefined);
        return new RecordCopiesWriter(folder, last.first, entries, last.name);
      } catch {
        // Unreadable: its records are read from the log when a story needs them.
        await rm(join(folder, last.name), { force: true });
      }
    }
    return new RecordCopiesWriter(folder, from, [], undefined);
  }

  /** Adds the copy of `record`, whose offset is past every one added before. */
  async add(record: LogRecord): Promise<void> {
    while (this.first + this.entries.length < record.offset) {
      this.entries.push(undefined);
      if (this.entries.length === RECORDS_PER_FILE) await this.flush();
    }
    this.entries.push(encodeEntry(record));
    if (this.entries.length === RECORDS_PER_FILE) await this.flush();
  }

  /** Writes what is held. */
  async close(): Promise<void> {
    if (this.entries.length > 0) await this.flush();
  }

  private async flush(): Promise<void> {
    const end = this.first + this.entries.length;
    const name = fileName(this.first, end);
    const temporary = join(this.folder, `.${name}.${process.pid}.tmp`);
    await writeFile(temporary, fileBytes(this.entries));
    await rename(temporary, join(this.folder, name));
    if (this.continues !== undefined && this.continues !== name) await rm(join(this.folder, this.continues), { force: true });
    if (this.entries.length === RECORDS_PER_FILE) {
      this.first = end;
      this.entries = [];
      this.continues = undefined;
    } else this.continues = name;
  }
}

/** The file of `files` (sorted) that holds `offset`, the last to begin at or before it. */
const fileOf = (files: readonly CopyFile[], offset: number): CopyFile | undefined => {
  let low = 0;
  let high = files.length - 1;
  let found: CopyFile | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (files[middle]!.first <= offset) {
      found = files[middle];
      low = middle + 1;
    } else high = middle - 1;
  }
  return found && offset < found.end ? found : undefined;
};

/**
 * The copies of the records at `offsets` that the folder holds and reads back whole. What
 * is missing or unreadable is simply not in the map: the caller reads it from the log. The
 * caller checks each against the index's digests.
 */
export const readCopies = async (indexDir: string, offsets: readonly number[]): Promise<Map<number, LogRecord>> => {
  const found = new Map<number, LogRecord>();
  if (offsets.length === 0) return found;
  const files = await listCopies(indexDir);
  const byFile = new Map<CopyFile, number[]>();
  for (const offset of offsets) {
    const file = fileOf(files, offset);
    if (!file) continue;
    const wanted = byFile.get(file);
    if (wanted) wanted.push(offset);
    else byFile.set(file, [offset]);
  }
  const queue = [...byFile];
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [file, wanted] = next;
      const handle = await open(join(indexDir, FOLDER, file.name)).catch(() => undefined);
      if (!handle) continue; // written again longer since it was listed: read from the log
      try {
        const count = file.end - file.first;
        const positions = Buffer.alloc((count + 1) * POSITION_BYTES);
        const { size } = await handle.stat();
        if ((await handle.read(positions, 0, positions.length, 0)).bytesRead < positions.length) continue;
        for (const offset of wanted) {
          const i = offset - file.first;
          const start = positions.readUInt32LE(i * POSITION_BYTES);
          const end = positions.readUInt32LE((i + 1) * POSITION_BYTES);
          if (end <= start || start < positions.length || end > size) continue;
          const entry = Buffer.alloc(end - start);
          if ((await handle.read(entry, 0, entry.length, start)).bytesRead < entry.length) continue;
          try {
            found.set(offset, decodeEntry(offset, entry));
          } catch {
            // A damaged copy: read from the log.
          }
        }
      } finally {
        await handle.close();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, queue.length) }, worker));
  return found;
};
