/** An embedded event log in a temp dir of its own, for tests that need a real log but no broker. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventLog } from '@shoal/eventlog';

export interface EmbeddedTestLog {
  readonly log: EmbeddedEventLog;
  readonly dir: string;
  /** Closes the log and removes its dir. */
  readonly close: () => Promise<void>;
}

/** Opens an embedded log (no fsync) in a fresh temp dir named `<prefix>…`. */
export const openEmbeddedTestLog = async (prefix = 'shoal-test-'): Promise<EmbeddedTestLog> => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const log = await EmbeddedEventLog.open({ dir, sync: false });
  return {
    log,
    dir,
    close: async () => {
      await log.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
