import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from '@shoal/contracts';
import { newSigningKey } from '@shoal/runtime';
import { nodeDescription } from '@shoal/testing';
import { writeSignedLog } from '../../../../libs/runtime/src/audit-tampering';
import { startApi } from '../testing/api-harness';
import type { ApiHarness } from '../testing/api-harness';
import type { AuditProof } from './audit-proof';

describe('GET /shoal/v1/audit/proof', () => {
  const { key, pem } = newSigningKey();
  let api: ApiHarness;
  const saved = process.env.SHOAL_AUDIT_PUBLIC_KEY;

  beforeAll(async () => {
    api = await startApi();
    const keyFile = join(api.dataDir, 'audit.pem');
    writeFileSync(keyFile, pem);
    process.env.SHOAL_AUDIT_PUBLIC_KEY = keyFile;
    const b = api.events;
    const records = Array.from({ length: 12 }, (_, i) => encode(b.event('NodeRegistered', { id: `n${i}`, role: 'worker', description: nodeDescription(`node-${i}`) })));
    await writeSignedLog(api.log, records, { key, everyRecords: 5 });
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.SHOAL_AUDIT_PUBLIC_KEY;
    else process.env.SHOAL_AUDIT_PUBLIC_KEY = saved;
    await api.close();
  });

  it('proves the log under the key published to the API, and names its fingerprint', async () => {
    const res = await api.request('GET', '/shoal/v1/audit/proof', { socket: true });
    expect(res.status).toBe(200);
    const proof = res.body as AuditProof;
    expect(proof).toMatchObject({ ok: true, problems: [], published: { fingerprint: key.fingerprint } });
    expect(proof.checkpoints).toBeGreaterThanOrEqual(3);
    expect(proof.keys).toEqual([expect.objectContaining({ fingerprint: key.fingerprint, trust: 'given' })]);
  });

  it('fails a log cut short of the point the auditor expects', async () => {
    const res = await api.request('GET', `/shoal/v1/audit/proof?expect=1000:${'a'.repeat(64)}`, { socket: true });
    expect(res.status).toBe(200);
    expect((res.body as AuditProof).difference).toMatchObject({ kind: 'truncated' });
  });

  it('answers a malformed expect with 400, naming the field', async () => {
    const res = await api.request('GET', '/shoal/v1/audit/proof?expect=12', { socket: true });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toMatch(/expect: must be <offset>:<chain hash>/);
  });
});
