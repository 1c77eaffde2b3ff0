/**
 * `docker swarm ca` and `docker swarm ca --rotate` through Docker's /swarm: the whole API in
 * this process on an embedded log, with a root CA (SHOAL_CA_DIR's). A rotation is a record of
 * the new root, cross-signed by the old, its key sealed; the cluster shows it under way until
 * every node reports a certificate of the new root, and then shows the new root and join
 * tokens that carry its digest.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_LEVEL, RULE_LEVELS } from '@shoal/contracts';
import type { RootCaRotationStarted } from '@shoal/contracts';
import { caDigest, ensureCa, issuerOf } from '@shoal/runtime';
import { nodeDescription } from '@shoal/testing';
import { startApi } from '../testing/api-harness';
import type { ApiHarness } from '../testing/api-harness';

interface Swarm {
  readonly Version: { readonly Index: number };
  readonly Spec: { readonly CAConfig: { readonly NodeCertExpiry?: number; readonly ForceRotate?: number } };
  readonly JoinTokens: { readonly Worker: string; readonly Manager: string };
  readonly TLSInfo: { readonly TrustRoot: string; readonly CertIssuerPublicKey: string };
  readonly RootRotationInProgress: boolean;
}

const swarmOf = async (api: ApiHarness): Promise<Swarm> => (await api.request('GET', '/swarm', { socket: true })).body as Swarm;

const rotationsOn = async (api: ApiHarness): Promise<{ v: number; data: RootCaRotationStarted }[]> =>
  (await api.log.read(0)).map((record) => JSON.parse(record.value) as { type: string; v: number; data: RootCaRotationStarted }).filter((record) => record.type === 'RootCaRotationStarted');

const rotate = (api: ApiHarness, swarm: Swarm, forceRotate: number, caConfig: Record<string, unknown> = {}) =>
  api.request('POST', `/swarm/update?version=${swarm.Version.Index}`, { socket: true, body: { ...swarm.Spec, CAConfig: { ...swarm.Spec.CAConfig, ForceRotate: forceRotate, ...caConfig } } });

describe('docker swarm ca --rotate', () => {
  const ca = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-api-ca-')));
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi({ logLevel: LOG_LEVEL, ca });
    const issuer = issuerOf(ca.certificate);
    const tls = { trustRoot: ca.certificate.toString(), certIssuerSubject: issuer.subject, certIssuerPublicKey: issuer.publicKey };
    await api.append(api.events.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1', { tls }) }));
  });
  afterAll(() => api.close());

  it('docker swarm ca shows the root CA of SHOAL_CA_DIR', async () => {
    const shown = await api.docker(['swarm', 'ca']);
    expect(shown.code).toBe(0);
    expect(shown.stdout.trim()).toBe(ca.pem.trim());
  });

  it('refuses a root CA of the caller’s own (--ca-cert/--ca-key), and writes nothing', async () => {
    const refused = await rotate(api, await swarmOf(api), 1, { SigningCACert: ca.pem, SigningCAKey: 'key' });
    expect(refused.status).toBe(400);
    expect((refused.body as { message: string }).message).toMatch(/--ca-cert\/--ca-key/);
    expect(await rotationsOn(api)).toEqual([]);
  });

  it('writes a new root cross-signed by the old, its key sealed, and shows the rotation under way while a node has a certificate of the old root', async () => {
    const before = await swarmOf(api);
    const answered = await rotate(api, before, 1);
    expect(answered.status).toBe(200);
    const [record] = await rotationsOn(api);
    const root = new X509Certificate(record!.data.root);
    const crossSigned = new X509Certificate(record!.data.crossSigned);
    expect(crossSigned.verify(ca.certificate.publicKey) && crossSigned.publicKey.equals(root.publicKey)).toBe(true);
    expect(record!.data.issuer).toEqual(issuerOf(root));
    expect(record!.data.tokens.worker.digest).toBe(caDigest(root));
    expect((await api.log.read(0)).map((r) => r.value).join('\n')).not.toMatch(/PRIVATE KEY/);

    const during = await swarmOf(api);
    expect(during.RootRotationInProgress).toBe(true);
    expect(during.Spec.CAConfig.ForceRotate).toBe(1);
    expect(during.TLSInfo.TrustRoot).toBe(ca.certificate.toString());
    expect(during.JoinTokens).toEqual(before.JoinTokens);
  });

  it('asks nothing more of the same ForceRotate: an update that sends it back writes no rotation', async () => {
    const swarm = await swarmOf(api);
    expect((await rotate(api, swarm, 1)).status).toBe(200);
    expect(await rotationsOn(api)).toHaveLength(1);
  });

  it('ends once the node reports a certificate of the new root: the new root is shown, and the tokens carry its digest', async () => {
    const [record] = await rotationsOn(api);
    const root = new X509Certificate(record!.data.root);
    const tls = { trustRoot: ca.certificate.toString() + root.toString(), certIssuerSubject: record!.data.issuer.subject, certIssuerPublicKey: record!.data.issuer.publicKey };
    await api.append(api.events.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1', { tls }) }));
    const after = await swarmOf(api);
    expect(after.RootRotationInProgress).toBe(false);
    expect(after.TLSInfo.TrustRoot).toBe(root.toString());
    expect(after.JoinTokens.Worker).toMatch(new RegExp(`^SWMTKN-1-${caDigest(root)}-[0-9a-z]{25}$`));
    expect(after.JoinTokens.Manager).toMatch(new RegExp(`^SWMTKN-1-${caDigest(root)}-`));
    const shown = await api.docker(['swarm', 'ca']);
    expect(shown.stdout.trim()).toBe(root.toString().trim());
    // The node shows what it reported: the roots it trusts (both, until it renews again) and its certificate's issuer.
    const node = (await api.request('GET', '/nodes/n1', { socket: true })).body as { Description: { TLSInfo: { TrustRoot: string; CertIssuerPublicKey: string } } };
    expect(node.Description.TLSInfo).toMatchObject({ TrustRoot: tls.trustRoot, CertIssuerPublicKey: tls.certIssuerPublicKey });
    // Join tokens rotated from now on carry the new root's digest too.
    expect((await api.request('POST', `/swarm/update?version=${after.Version.Index}&rotateWorkerToken=true`, { socket: true, body: after.Spec })).status).toBe(200);
    expect((await swarmOf(api)).JoinTokens.Worker.split('-')[2]).toBe(caDigest(root));
  });
});

describe('docker swarm ca --rotate refused', () => {
  it('on a cluster without a root CA, naming what to start with', async () => {
    const api = await startApi({ logLevel: LOG_LEVEL });
    try {
      const refused = await rotate(api, await swarmOf(api), 1);
      expect(refused.status).toBe(400);
      expect((refused.body as { message: string }).message).toMatch(/^CAConfig.ForceRotate: the cluster has no root CA to rotate: start the API and the dispatchers with SHOAL_CA_DIR/);
    } finally {
      await api.close();
    }
  });

  it('on a log below level 6, naming the level, and writes nothing', async () => {
    const api = await startApi({ logLevel: RULE_LEVELS.nodeTlsInfo - 1, ca: ensureCa(mkdtempSync(join(tmpdir(), 'shoal-api-ca5-'))) });
    try {
      const refused = await rotate(api, await swarmOf(api), 1);
      expect(refused.status).toBe(400);
      expect((refused.body as { message: string }).message).toMatch(/needs log level 6 and the log is at level 5: raise it/);
      expect(await rotationsOn(api)).toEqual([]);
    } finally {
      await api.close();
    }
  });
});
