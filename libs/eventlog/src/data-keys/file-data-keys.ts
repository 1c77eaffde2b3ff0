/**
 * Data keys as files, for the embedded log: `<dir>/<secret id>.key`, mode 0600, one JSON
 * record each. Destroying a key unlinks its file. (What the filesystem keeps of an unlinked
 * file's blocks is the disk's business: put the data directory on an encrypted volume where
 * that matters; the Kafka store is the one for deployments.)
 */
import { mkdir, readdir, readFile, rm, writeFile, rename } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeStoredKey, encodeStoredKey } from './data-key-store';
import type { DataKeyStore, StoredDataKey } from './data-key-store';

const ID = /^[A-Za-z0-9_-]+$/;

export class FileDataKeys implements DataKeyStore {
  /** The keys read or put by this process, for list(). */
  private readonly known = new Map<string, StoredDataKey>();

  private constructor(readonly dir: string) {}

  get description(): string {
    return `files in ${this.dir}`;
  }

  static async open(dir: string): Promise<FileDataKeys> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const store = new FileDataKeys(dir);
    await store.list();
    return store;
  }

  async put(id: string, wrapped: Buffer): Promise<void> {
    const key = { wrapped, at: Date.now() };
    const path = this.pathOf(id);
    await writeFile(`${path}.new`, encodeStoredKey(key), { mode: 0o600 });
    await rename(`${path}.new`, path);
    this.known.set(id, key);
  }

  async get(id: string): Promise<StoredDataKey | undefined> {
    const text = await readFile(this.pathOf(id), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    const key = text === undefined ? undefined : decodeStoredKey(text);
    if (key) this.known.set(id, key);
    else this.known.delete(id);
    return key;
  }

  /** Read from its file (another process on the same directory may have put it). */
  peek(id: string): StoredDataKey | undefined {
    let text: string;
    try {
      text = readFileSync(this.pathOf(id), 'utf8');
    } catch {
      return undefined;
    }
    return decodeStoredKey(text);
  }

  async list(): Promise<ReadonlyMap<string, StoredDataKey>> {
    const names = (await readdir(this.dir)).filter((name) => name.endsWith('.key'));
    this.known.clear();
    for (const name of names) await this.get(name.slice(0, -'.key'.length));
    return new Map(this.known);
  }

  async destroy(id: string): Promise<void> {
    await rm(this.pathOf(id), { force: true });
    this.known.delete(id);
  }

  async close(): Promise<void> {
    this.known.clear();
  }

  private pathOf(id: string): string {
    if (!ID.test(id)) throw new Error(`"${id}" is not a secret id`);
    return join(this.dir, `${id}.key`);
  }
}
