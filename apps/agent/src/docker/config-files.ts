/**
 * A task's configs as files for its container, never on the host's disk: each is written
 * under a directory on tmpfs (default /dev/shm/shoal-configs/<task id>/<n>), owned by the
 * reference's uid:gid with its mode, and bound read-only at its target in the container
 * (as the engine itself keeps swarm configs and secrets on a tmpfs). A root that is not
 * on tmpfs (or ramfs) is refused. Such files live in memory: they go when the task is
 * removed, or with a reboot.
 */
import { chmod, chown, mkdir, rm, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TaskConfig } from '../executor';
import type { ConfigFile } from './container-config';

export const DEFAULT_CONFIG_ROOT = '/dev/shm/shoal-configs';
const TMPFS_MAGIC = 0x01021994;
const RAMFS_MAGIC = 0x858458f6;

/** A numeric id from a reference's uid or gid ("" → 0); a name cannot be resolved outside the container: refused. */
const numericId = (value: string, field: string): number => {
  const text = value.trim() || '0';
  if (!/^\d+$/.test(text)) throw new Error(`${field}: "${value}" is not a numeric id (the docker executor does not resolve names)`);
  return Number(text);
};

export class ConfigFiles {
  private checked: Promise<void> | undefined;

  constructor(readonly root: string = DEFAULT_CONFIG_ROOT) {}

  /** Writes a task's configs and says where each is to be bound. */
  async write(taskId: string, configs: readonly TaskConfig[]): Promise<ConfigFile[]> {
    if (configs.length === 0) return [];
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    await (this.checked ??= this.checkInMemory());
    const dir = join(this.root, taskId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const asRoot = process.getuid?.() === 0;
    return Promise.all(
      configs.map(async ({ reference, data }, index) => {
        const hostPath = join(dir, String(index));
        await writeFile(hostPath, data, { mode: 0o600 });
        if (asRoot) await chown(hostPath, numericId(reference.file.uid, `configs[${index}].file.uid`), numericId(reference.file.gid, `configs[${index}].file.gid`));
        await chmod(hostPath, reference.file.mode);
        return { hostPath, target: reference.file.name };
      }),
    );
  }

  /** Removes a task's files. Never rejects. */
  async remove(taskId: string): Promise<void> {
    await rm(join(this.root, taskId), { recursive: true, force: true }).catch(() => undefined);
  }

  private async checkInMemory(): Promise<void> {
    const { type } = await statfs(this.root);
    if (type !== TMPFS_MAGIC && type !== RAMFS_MAGIC) throw new Error(`configs are kept on tmpfs only, and ${this.root} is not on tmpfs: the docker executor will not write them to disk`);
  }
}
