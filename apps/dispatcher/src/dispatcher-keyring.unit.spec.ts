import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventLog } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { ClusterKeyring } from '@shoal/runtime';
import { dispatcherKeyring } from './dispatcher-keyring';

describe("the dispatcher's cluster keyring", () => {
  let dir: string;
  let log: EventLog;
  let unlockKey: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-dispatcher-keyring-'));
    log = await EmbeddedEventLog.open({ dir: join(dir, 'log'), sync: false });
    // The API turned autolock on: the key file is locked.
    const api = await ClusterKeyring.open(log, dir, {});
    await api.vault();
    unlockKey = await api.setAutolock(true);
    await api.close();
  });
  afterEach(async () => {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stays locked without SHOAL_UNLOCK_KEY_FILE, and says how to unlock it', async () => {
    const lines: string[] = [];
    const keyring = await dispatcherKeyring(log, dir, {}, (line) => lines.push(line));
    expect(keyring.isLocked).toBe(true);
    await expect(keyring.vault()).rejects.toThrow(/Swarm is encrypted and needs to be unlocked/);
    expect(lines).toEqual([`the cluster key in ${join(dir, 'secrets.key')} is locked (autolock): this dispatcher sends no secret to nodes until it starts with SHOAL_UNLOCK_KEY_FILE`]);
  });

  it('unlocks with the key in SHOAL_UNLOCK_KEY_FILE, and refuses to start with another', async () => {
    const file = join(dir, 'unlock.key');
    writeFileSync(file, `${unlockKey}\n`);
    const keyring = await dispatcherKeyring(log, dir, { SHOAL_UNLOCK_KEY_FILE: file }, () => undefined);
    expect(keyring.isLocked).toBe(false);
    await keyring.vault();
    await keyring.close();
    writeFileSync(file, `SWMKEY-1-${Buffer.alloc(32, 7).toString('base64').replace(/=+$/, '')}\n`);
    await expect(dispatcherKeyring(log, dir, { SHOAL_UNLOCK_KEY_FILE: file }, () => undefined)).rejects.toThrow(
      `SHOAL_UNLOCK_KEY_FILE (${file}) does not unlock the cluster key in ${join(dir, 'secrets.key')}: swarm could not be unlocked: invalid key provided`,
    );
  });
});
