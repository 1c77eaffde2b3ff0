/** The newest snapshot of each component that keeps them under `<dataDir>/snapshots/<component>/`, for verify to check. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Snapshot } from '@shoal/domain';
import { FileSnapshotStore } from '@shoal/eventlog';

export const latestSnapshots = async (dir: string): Promise<{ name: string; snapshot: Snapshot }[]> => {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const found: { name: string; snapshot: Snapshot }[] = [];
  for (const name of names.sort()) {
    const snapshot = await new FileSnapshotStore(join(dir, name)).latest().catch(() => undefined);
    if (snapshot) found.push({ name, snapshot });
  }
  return found;
};
