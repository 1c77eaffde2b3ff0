import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventLog } from '@shoal/eventlog';
import { describeFailoverFencing } from './failover.contract';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

// One process holds the embedded log, so active and standby share its handle.
describeFailoverFencing('embedded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'shoal-failover-'));
  dirs.push(dir);
  const log = await EmbeddedEventLog.open({ dir, sync: false });
  return { active: log, standby: log };
});
