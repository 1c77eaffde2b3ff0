import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileDataKeys } from '@shoal/eventlog';
import { EmbeddedEventLog } from '@shoal/eventlog';
import { readClusterKeyFile } from './cluster-key';

/** The key a plain (unlocked) file holds. */
const keyIn = async (path: string, create: boolean): Promise<Buffer> => {
  const file = await readClusterKeyFile(path, create);
  if (!('key' in file)) throw new Error(`${path} is locked`);
  return file.key;
};
import { ClusterKeyring } from './cluster-keyring';
import { newDataKey, openSecretData, sealSecretData, unwrapDataKey, wrapDataKey } from './secret-box';
import { SecretKeyMissingError, SecretVault } from './secret-vault';

describe('secret ciphers', () => {
  it('seal and open a secret under its data key, bound to its id; any change, another key or another id does not open', () => {
    const key = newDataKey();
    const sealed = sealSecretData(key, Buffer.from('hunter2'), 'x1');
    expect(sealed.includes(Buffer.from('hunter2'))).toBe(false);
    expect(openSecretData(key, sealed, 'x1').toString()).toBe('hunter2');
    expect(() => openSecretData(newDataKey(), sealed, 'x1')).toThrow(/does not open with this key/);
    expect(() => openSecretData(key, sealed, 'x2')).toThrow(/does not open with this key/);
    const flipped = Buffer.from(sealed);
    flipped[14] = flipped[14]! ^ 1;
    expect(() => openSecretData(key, flipped, 'x1')).toThrow(/changed/);
    expect(sealSecretData(key, Buffer.from('hunter2'), 'x1').equals(sealed)).toBe(false);
  });

  it('wrap a data key under the cluster key, for its secret only', () => {
    const cluster = newDataKey();
    const dataKey = newDataKey();
    const wrapped = wrapDataKey(cluster, dataKey, 'x1');
    expect(unwrapDataKey(cluster, wrapped, 'x1').equals(dataKey)).toBe(true);
    expect(() => unwrapDataKey(cluster, wrapped, 'x2')).toThrow(/SHOAL_SECRETS_KEY_FILE/);
  });
});

describe('SecretVault on files', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'shoal-vault-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('seals with a key of its own per secret, opens from another store on the same directory, and never again once destroyed', async () => {
    const cluster = newDataKey();
    const vault = new SecretVault(cluster, await FileDataKeys.open(join(dir, 'keys')));
    const sealed = await vault.seal('x1', Buffer.from('hunter2'));
    const other = await vault.seal('x2', Buffer.from('hunter2'));
    expect(sealed).not.toBe(other);
    const elsewhere = new SecretVault(cluster, await FileDataKeys.open(join(dir, 'keys')));
    expect(elsewhere.openNow('x1', sealed).toString()).toBe('hunter2');
    expect((statSync(join(dir, 'keys', 'x1.key')).mode & 0o777).toString(8)).toBe('600');
    expect(readFileSync(join(dir, 'keys', 'x1.key'), 'utf8')).not.toContain('hunter2');

    await vault.destroy('x1');
    expect(() => elsewhere.openNow('x1', sealed)).toThrow(SecretKeyMissingError);
    await expect(vault.open('x1', sealed)).rejects.toThrow('secret x1 cannot be opened: its data key is not in the store');
    expect((await vault.open('x2', other)).toString()).toBe('hunter2');
  });

  it('sweeps keys whose secret is not on the log once they are old enough, and keeps the rest', async () => {
    const vault = new SecretVault(newDataKey(), await FileDataKeys.open(join(dir, 'keys')));
    await vault.seal('kept', Buffer.from('a'));
    await vault.seal('orphan', Buffer.from('b'));
    await vault.seal('young', Buffer.from('c'));
    const onTheLog = (id: string): boolean => id === 'kept';
    expect(await vault.sweep(onTheLog, Date.now(), 60_000)).toEqual([]);
    expect((await vault.sweep((id) => id === 'kept' || id === 'young', Date.now() + 120_000, 60_000)).sort()).toEqual(['orphan']);
    expect([...(await vault.store.list()).keys()].sort()).toEqual(['kept', 'young']);
  });
});

describe('the cluster key', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'shoal-cluster-key-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is made once, mode 0600; processes that race to make it get the same one', async () => {
    const path = join(dir, 'secrets.key');
    const keys = await Promise.all([keyIn(path, true), keyIn(path, true), keyIn(path, true)]);
    expect(keys[0]!.length).toBe(32);
    expect(keys.every((key) => key.equals(keys[0]!))).toBe(true);
    expect((statSync(path).mode & 0o777).toString(8)).toBe('600');
    expect((await keyIn(path, false)).equals(keys[0]!)).toBe(true);
  });

  it('refuses a file that is not a key, and a missing one it may not make, saying what to do', async () => {
    const path = join(dir, 'bad.key');
    writeFileSync(path, 'short');
    await expect(keyIn(path, true)).rejects.toThrow(`${path} does not hold a cluster key (32 bytes in base64): make one with \`openssl rand -base64 32\``);
    await expect(keyIn(join(dir, 'none.key'), false)).rejects.toThrow(/set SHOAL_SECRETS_KEY_FILE/);
  });

  it("refuses to open a vault whose key is not the one the store's keys are under", async () => {
    const log = await EmbeddedEventLog.open({ dir: join(dir, 'log'), sync: false });
    const opened = async (env: NodeJS.ProcessEnv): Promise<void> => {
      const keyring = await ClusterKeyring.open(log, dir, env);
      try {
        await keyring.vault();
      } finally {
        await keyring.close();
      }
    };
    try {
      await opened({});
      const other = join(dir, 'other.key');
      writeFileSync(other, `${newDataKey().toString('base64')}\n`);
      await expect(opened({ SHOAL_SECRETS_KEY_FILE: other })).rejects.toThrow(
        `the cluster key in ${other} is not the one this cluster's secrets are kept under (files in ${join(dir, 'secret-keys')}): give every API and dispatcher the same key file (SHOAL_SECRETS_KEY_FILE)`,
      );
      await opened({});
    } finally {
      await log.close();
    }
  });
});
