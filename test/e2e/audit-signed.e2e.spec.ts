import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@shoal/contracts';
import { KafkaEventLog } from '@shoal/eventlog';
import { newSigningKey } from '@shoal/runtime';
import { eventually, testBrokers } from '@shoal/testing';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import { runShoalCli } from '../../libs/testing/src/processes/spawn-shoal';
import { tampered } from '../../libs/runtime/src/audit-tampering';

const session = readFileSync(join(__dirname, '../golden/docker-session.jsonl'), 'utf8').split('\n').filter(Boolean);

// `shoal run reaper` with the operator's key signs checkpoints on a real broker; the CLI in
// its own process proves the topic, names a removed record in a tampered copy, and reports.
describe('signed audit checkpoints across processes', () => {
  const { key, pem } = newSigningKey();
  let deployment: ShoalProcesses;
  beforeEach(() => {
    deployment = ShoalProcesses.onKafka('e2e-audit', { SHOAL_HEALTH_PORT: '0', SHOAL_AUDIT_CHECKPOINT_RECORDS: '20', SHOAL_AUDIT_CHECKPOINT_SECONDS: '1' });
  });
  afterEach(() => deployment?.close());

  it('the reaper signs; verify proves the topic, names a removed record in a copy; report carries the key', async () => {
    const { env, dataDir, topicPrefix } = deployment;
    const keyFile = join(dataDir, 'audit.pem');
    writeFileSync(keyFile, pem, { mode: 0o600 });
    const log = await KafkaEventLog.open({ brokers: testBrokers(), topic: `${topicPrefix}.events` });
    try {
      await log.append(session.map((value) => ({ key: 'c1', value })));
      const reaper = deployment.cli(['run', 'reaper'], { SHOAL_AUDIT_SIGNING_KEY: keyFile });
      await reaper.waitFor(new RegExp(`signing audit checkpoints with ${key.fingerprint}`), 90_000);
      // Every record the test wrote, and the reaper's own term, signed.
      await eventually(
        'a checkpoint past the records the test wrote',
        async () => {
          const records = await log.read(0);
          const through = Math.max(-1, ...records.map((record) => decode(record.value)).map((d) => (d.ok && d.event.type === 'AuditCheckpointed' ? d.event.data.through : -1)));
          return through >= session.length;
        },
        60_000,
      );
      expect(await reaper.stop()).toBe(0);

      const verify = await runShoalCli(['audit', 'verify', '--json', '--key', keyFile], env, 120_000);
      expect(verify.stderr).toBe('');
      const report = JSON.parse(verify.stdout) as { ok: boolean; proof: { ok: boolean; checkpoints: number; keys: { fingerprint: string }[]; end: { through: number } } };
      expect(report.proof.ok).toBe(true);
      expect(report.proof.checkpoints).toBeGreaterThanOrEqual(Math.floor(session.length / 20));
      expect(report.proof.keys.map((use) => use.fingerprint)).toEqual([key.fingerprint]);
      expect(verify.code).toBe(0);

      // The same records with one removed, copied into a topic of their own.
      const values = (await log.read(0)).map((record) => record.value);
      const copyPrefix = `${topicPrefix}-copy`;
      const copy = await KafkaEventLog.open({ brokers: testBrokers(), topic: `${copyPrefix}.events` });
      try {
        await copy.append(tampered(values, 'removed', 30).map((value) => ({ key: 'c1', value })));
      } finally {
        await copy.close();
      }
      const caught = await runShoalCli(['audit', 'verify', '--key', keyFile], { ...env, SHOAL_TOPIC_PREFIX: copyPrefix }, 120_000);
      expect(caught.stdout).toMatch(/proof {5}FAIL at offset 30: removed: the record signed at offset 30 is missing/);
      expect(caught.code).toBe(1);

      const html = await runShoalCli(['audit', 'report', '--format', 'html', '--key', keyFile], env, 120_000);
      expect(html.code).toBe(0);
      expect(html.stdout).toContain(key.fingerprint);
      expect(html.stdout).toContain('ServiceCreated');
    } finally {
      await log.close();
    }
  });

  it('the all-in-one process signs too: npm start with the key, then verify proves what it wrote', async () => {
    const keyDir = mkdtempSync(join(tmpdir(), 'shoal-audit-key-'));
    const keyFile = join(keyDir, 'audit.pem');
    writeFileSync(keyFile, pem, { mode: 0o600 });
    const embedded = ShoalProcesses.embedded('e2e-audit-aio', { SHOAL_API_PORT: '0', SHOAL_AUDIT_SIGNING_KEY: keyFile, SHOAL_AUDIT_CHECKPOINT_SECONDS: '1' });
    try {
      const shoal = embedded.start();
      await shoal.waitFor(/Ctrl-C stops it/, 90_000);
      // What it wrote on starting (the cluster, the terms, the ingress network), signed within a second or two.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      expect(await shoal.stop()).toBe(0);
      const verify = await runShoalCli(['audit', 'verify', '--json', '--key', keyFile], embedded.env, 120_000);
      const report = JSON.parse(verify.stdout) as { proof: { ok: boolean; checkpoints: number; signedThrough: number; keys: { fingerprint: string }[] } };
      expect(report.proof).toMatchObject({ ok: true, keys: [expect.objectContaining({ fingerprint: key.fingerprint })] });
      expect(report.proof.checkpoints).toBeGreaterThanOrEqual(1);
      expect(report.proof.signedThrough).toBeGreaterThanOrEqual(1);
      expect(verify.code).toBe(0);
    } finally {
      await embedded.close();
      rmSync(keyDir, { recursive: true, force: true });
    }
  });
});
