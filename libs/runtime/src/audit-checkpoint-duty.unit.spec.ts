import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedTestLog } from '@shoal/testing';
import { AuditCheckpointer } from './audit-checkpointer';
import { checkpointSettingsFromEnv } from './audit-checkpoint-duty';
import { newSigningKey } from './audit-keys';

describe('the checkpoint duty', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-audit-duty-'));
  const { key, pem } = newSigningKey();
  const keyFile = join(dir, 'audit.pem');
  writeFileSync(keyFile, pem);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is off without a key, and reads the key and the intervals from the environment', () => {
    expect(checkpointSettingsFromEnv({})).toBeUndefined();
    const settings = checkpointSettingsFromEnv({ SHOAL_AUDIT_SIGNING_KEY: keyFile, SHOAL_AUDIT_CHECKPOINT_RECORDS: '250', SHOAL_AUDIT_CHECKPOINT_SECONDS: '5' });
    expect(settings).toMatchObject({ everyRecords: 250, everyMs: 5_000 });
    expect(settings?.key.fingerprint).toBe(key.fingerprint);
  });

  it('says what to fix: a missing key file, a key that is not Ed25519, an interval out of range', () => {
    expect(() => checkpointSettingsFromEnv({ SHOAL_AUDIT_SIGNING_KEY: join(dir, 'nope.pem') })).toThrow(/cannot read the signing key .*nope\.pem/);
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'hello');
    expect(() => checkpointSettingsFromEnv({ SHOAL_AUDIT_SIGNING_KEY: notPem })).toThrow(/not a PEM private key.*openssl genpkey -algorithm ed25519/);
    expect(() => checkpointSettingsFromEnv({ SHOAL_AUDIT_SIGNING_KEY: keyFile, SHOAL_AUDIT_CHECKPOINT_RECORDS: '20001' })).toThrow('SHOAL_AUDIT_CHECKPOINT_RECORDS must be a whole number from 1 to 20000, not "20001"');
  });

  it('writes nothing while this process does not own the reaper, then signs what it sealed once it does', async () => {
    const { log, close } = await openEmbeddedTestLog('shoal-audit-duty-log-');
    let term: number | undefined;
    const checkpointer = new AuditCheckpointer(log, { key, everyRecords: 3, everyMs: 60_000, instance: 'reaper-audit-test', term: () => term });
    try {
      checkpointer.start();
      await log.append(Array.from({ length: 7 }, (_, i) => ({ key: 'c1', value: `{"record":${i}}` })));
      while (checkpointer.position < 7) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(checkpointer.written).toBe(0);
      expect(await log.highWaterMark()).toBe(7);
      term = 0;
      await log.append([{ key: 'c1', value: '{"record":7}' }]);
      while (checkpointer.written < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      const written = (await log.read(7)).filter((record) => record.value.includes('"AuditCheckpointed"'));
      // The spans sealed while standing by, each at its own offsets, went out once it owned the reaper.
      const spans = written.map((record) => (JSON.parse(record.value) as { data: { from: number; through: number } }).data);
      expect(spans.slice(0, 2)).toEqual([expect.objectContaining({ from: 0, through: 2 }), expect.objectContaining({ from: 3, through: 5 })]);
      expect(spans.slice(2).every((span) => span.from >= 6)).toBe(true);
    } finally {
      await checkpointer.stop();
      await close();
    }
  });
});
