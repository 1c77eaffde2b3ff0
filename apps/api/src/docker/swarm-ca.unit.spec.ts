/**
 * `docker swarm ca` and `docker swarm ca --rotate` through Docker's /swarm: the whole API in
 * this process on an embedded log, with a root CA (SHOAL_CA_DIR's). A rotation is a record of
 * the new root, cross-signed by the old, its key sealed; the cluster shows it under way until
 * every node reports a certificate of the new root, and then shows the new root and join
 * tokens that carry its digest.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_LEVEL, RULE_LEVELS } from '@shoal/contracts';
import type { RootCaRotationStarted } from '@shoal/contracts';
import { buildCertificate, caDigest, ensureCa, issuerOf, newKeyPair, privateKeyPem } from '@shoal/runtime';
import { ApiSecretVault } from '../secrets/api-secret-vault';
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

/** A root CA as an operator brings one (a self-signed ECDSA CA, ten years unless `days`), or a self-signed certificate that is not a CA. */
const operatorCa = (options: { readonly days?: number; readonly notCa?: boolean } = {}) => {
  const keys = newKeyPair();
  const now = Date.now();
  const certificate = buildCertificate({
    kind: options.notCa ? 'node' : 'ca',
    subject: { commonName: 'Operator root CA', organization: 'example' },
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + (options.days ?? 3650) * 24 * 3600 * 1000),
  });
  return { certificate, cert: certificate.toString(), key: privateKeyPem(keys.privateKey) };
};

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

  it("refuses a root of the operator's own that SwarmKit would refuse, naming why, and writes nothing", async () => {
    const swarm = await swarmOf(api);
    const own = operatorCa();
    const short = operatorCa({ days: 200 });
    const refusals: [Record<string, unknown>, string][] = [
      [{ SigningCAKey: own.key }, 'CAConfig.SigningCAKey: if a signing CA key is provided, the signing CA cert must also be provided'],
      [{ SigningCACert: own.cert }, 'CAConfig.SigningCACert: there must be at least one valid, reachable external CA corresponding to the desired CA certificate: Shoal has no external CAs (--external-ca), so a root of your own needs its key too (docker swarm ca --rotate --ca-cert FILE --ca-key FILE)'],
      [{ SigningCACert: own.key, SigningCAKey: own.key }, 'CAConfig.SigningCACert: invalid root certificates: {"code":1003,"message":"Failed to parse certificate"}'],
      [{ SigningCACert: own.cert, SigningCAKey: operatorCa().key }, 'CAConfig.SigningCAKey: certificate key mismatch'],
      [{ SigningCACert: short.cert, SigningCAKey: short.key }, 'CAConfig.SigningCACert: CA certificate expires too soon'],
      [{ SigningCACert: own.cert + short.cert, SigningCAKey: own.key }, 'CAConfig.SigningCACert: the desired CA certificate cannot contain multiple certificates'],
    ];
    for (const [caConfig, message] of refusals) {
      const refused = await rotate(api, swarm, 0, caConfig);
      expect({ status: refused.status, message: (refused.body as { message: string }).message }).toEqual({ status: 400, message });
      expect((refused.body as { message: string }).message).not.toContain('PRIVATE KEY');
    }
    const leaf = operatorCa({ notCa: true });
    expect(((await rotate(api, swarm, 0, { SigningCACert: leaf.cert, SigningCAKey: leaf.key })).body as { message: string }).message).toMatch(/certificate not a CA$/);
    // The stock CLI refuses --ca-cert alone itself, before any request.
    const dir = mkdtempSync(join(tmpdir(), 'shoal-api-own-ca-'));
    writeFileSync(join(dir, 'ca.pem'), own.cert);
    const alone = await api.docker(['swarm', 'ca', '--rotate', '--ca-cert', join(dir, 'ca.pem')]);
    expect(alone.code).not.toBe(0);
    expect(alone.stderr).toMatch(/--ca-cert flag requires that a --ca-key flag and\/or --external-ca flag be provided/);
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

describe("docker swarm ca --rotate --ca-cert --ca-key: a root of the operator's own", () => {
  const ca = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-api-ca-own-')));
  const own = operatorCa();
  const dir = mkdtempSync(join(tmpdir(), 'shoal-api-own-files-'));
  let api: ApiHarness;
  beforeAll(async () => {
    writeFileSync(join(dir, 'ca.pem'), own.cert);
    writeFileSync(join(dir, 'ca-key.pem'), own.key);
    api = await startApi({ logLevel: LOG_LEVEL, ca });
    const issuer = issuerOf(ca.certificate);
    const tls = { trustRoot: ca.certificate.toString(), certIssuerSubject: issuer.subject, certIssuerPublicKey: issuer.publicKey };
    await api.append(api.events.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1', { tls }) }));
  });
  afterAll(() => api.close());

  it("the stock CLI sends them, and the rotation is to that root: cross-signed by the root in use, its key sealed, never in the clear on the log", async () => {
    const sent = await api.docker(['swarm', 'ca', '--rotate', '--detach', '--ca-cert', join(dir, 'ca.pem'), '--ca-key', join(dir, 'ca-key.pem')]);
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    const [record, ...more] = await rotationsOn(api);
    expect(more).toEqual([]);
    const root = new X509Certificate(record!.data.root);
    expect(root.raw).toEqual(own.certificate.raw);
    expect(record!.data.root).toBe(own.certificate.toString());
    // The CLI leaves ForceRotate as it was when it gives a root: the record keeps it.
    expect(record!.data.forceRotate).toBe(0);
    const crossSigned = new X509Certificate(record!.data.crossSigned);
    expect(crossSigned.subject).toBe(root.subject);
    expect(crossSigned.publicKey.equals(root.publicKey)).toBe(true);
    expect(crossSigned.checkIssued(ca.certificate) && crossSigned.verify(ca.certificate.publicKey)).toBe(true);
    expect(record!.data.issuer).toEqual(issuerOf(root));
    expect(record!.data.tokens.worker.digest).toBe(caDigest(root));
    // Sealed under the cluster key, bound to the root: it opens to the operator's key, which is nowhere on the log in the clear.
    const keyring = api.app.get(ApiSecretVault).keyring;
    expect(createPrivateKey(keyring.openRootCaKey(record!.data.key, caDigest(root))).export({ type: 'pkcs8', format: 'der' })).toEqual(createPrivateKey(own.key).export({ type: 'pkcs8', format: 'der' }));
    const bytes = (await api.log.read(0)).map((r) => r.value).join('\n');
    const keyBody = (pem: string): string => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    for (const form of [own.key, createPrivateKey(own.key).export({ type: 'pkcs8', format: 'pem' }).toString()]) {
      expect(bytes).not.toContain(keyBody(form));
      expect(bytes).not.toContain(keyBody(form).slice(0, 40));
    }
    expect(bytes).not.toMatch(/PRIVATE KEY/);
    expect(JSON.stringify(record)).not.toContain(keyBody(own.key).slice(0, 40));
  });

  it('swarm inspect shows the rotation under way, and never the signing key nor the certificate (SwarmKit redacts both)', async () => {
    const during = await swarmOf(api);
    expect(during.RootRotationInProgress).toBe(true);
    expect(during.TLSInfo.TrustRoot).toBe(ca.certificate.toString());
    expect(during.Spec.CAConfig).toEqual({ NodeCertExpiry: 90 * 24 * 3600 * 1e9 });
    const raw = JSON.stringify((await api.request('GET', '/swarm', { socket: true })).body);
    expect(raw).not.toMatch(/SigningCA|PRIVATE KEY/);
  });

  it('asks nothing more of the root the rotation is already moving to, and refuses the root in use meanwhile (SwarmKit would abort the rotation)', async () => {
    const swarm = await swarmOf(api);
    expect((await rotate(api, swarm, 0, { SigningCACert: own.cert, SigningCAKey: own.key })).status).toBe(200);
    const back = await rotate(api, swarm, 0, { SigningCACert: ca.pem, SigningCAKey: ca.key.export({ type: 'pkcs8', format: 'pem' }).toString() });
    expect(back.status).toBe(400);
    expect((back.body as { message: string }).message).toMatch(/^CAConfig.SigningCACert: the desired CA certificate is the root in use while a rotation to another root is under way: Shoal cannot abort a rotation/);
    expect(await rotationsOn(api)).toHaveLength(1);
  });

  it("ends as every rotation does: the node on a certificate of the operator's root ends it, and docker swarm ca shows that root", async () => {
    const [record] = await rotationsOn(api);
    const tls = { trustRoot: ca.certificate.toString() + own.certificate.toString(), certIssuerSubject: record!.data.issuer.subject, certIssuerPublicKey: record!.data.issuer.publicKey };
    await api.append(api.events.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1', { tls }) }));
    const after = await swarmOf(api);
    expect(after.RootRotationInProgress).toBe(false);
    expect(after.TLSInfo.TrustRoot).toBe(own.certificate.toString());
    expect(after.JoinTokens.Worker.split('-')[2]).toBe(caDigest(own.certificate));
    const shown = await api.docker(['swarm', 'ca']);
    expect(shown.stdout.trim()).toBe(own.cert.trim());
    // The root in use given again: nothing to do (SwarmKit keeps it, as Shoal does).
    expect((await rotate(api, after, 0, { SigningCACert: own.cert, SigningCAKey: own.key })).status).toBe(200);
    expect(await rotationsOn(api)).toHaveLength(1);
    // And a rotation of Shoal's own from there is cross-signed by the operator's root.
    expect((await rotate(api, await swarmOf(api), 1)).status).toBe(200);
    const [, next] = await rotationsOn(api);
    expect(new X509Certificate(next!.data.crossSigned).verify(own.certificate.publicKey)).toBe(true);
  });
});

describe("docker swarm init with a root of the operator's own (CAConfig.SigningCACert and SigningCAKey), or external CAs", () => {
  const ca = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-api-ca-init-')));
  let api: ApiHarness;
  beforeEach(async () => {
    api = await startApi({ initialized: false, ca });
  });
  afterEach(() => api.close());

  const init = (caConfig: Record<string, unknown>) => api.request('POST', '/swarm/init', { socket: true, body: { ListenAddr: '0.0.0.0:2377', Spec: { CAConfig: caConfig } } });

  it('initialises the swarm, then rotates to that root, as Docker applies the spec it was given', async () => {
    const own = operatorCa();
    expect((await init({ SigningCACert: own.cert, SigningCAKey: own.key })).status).toBe(200);
    const types = (await api.log.read(0)).map((record) => (JSON.parse(record.value) as { type: string }).type);
    expect(types).toEqual(['ClusterInitialized', 'RootCaRotationStarted']);
    const [record] = await rotationsOn(api);
    expect(record!.data.root).toBe(own.certificate.toString());
    expect(new X509Certificate(record!.data.crossSigned).checkIssued(ca.certificate)).toBe(true);
    expect(record!.data.tokens.worker.digest).toBe(caDigest(own.certificate));
    expect((await api.log.read(0)).map((r) => r.value).join('\n')).not.toMatch(/PRIVATE KEY/);
    // No node holds a certificate of the root SHOAL_CA_DIR gave: the rotation is over at once, and
    // the swarm shows the operator's root, its join tokens carrying that root's digest.
    const swarm = await swarmOf(api);
    expect(swarm.RootRotationInProgress).toBe(false);
    expect(swarm.TLSInfo.TrustRoot).toBe(own.certificate.toString());
    expect(swarm.JoinTokens.Worker.split('-')[2]).toBe(caDigest(own.certificate));
    expect((await api.docker(['swarm', 'ca'])).stdout.trim()).toBe(own.cert.trim());
  });

  it('refuses a root SwarmKit would refuse, and external CAs, before anything is written; a plain init then works', async () => {
    const own = operatorCa();
    const refusals: [Record<string, unknown>, string][] = [
      [{ SigningCAKey: own.key }, 'CAConfig.SigningCAKey: if a signing CA key is provided, the signing CA cert must also be provided'],
      [{ SigningCACert: own.cert, SigningCAKey: operatorCa().key }, 'CAConfig.SigningCAKey: certificate key mismatch'],
      [{ ExternalCAs: [{ Protocol: 'cfssl', URL: 'https://127.0.0.1:1' }] }, 'not supported by Shoal: external CAs (--external-ca)'],
    ];
    for (const [caConfig, message] of refusals) {
      const refused = await init(caConfig);
      expect(refused.status).toBe(400);
      expect((refused.body as { message: string }).message).toContain(message);
    }
    // The stock CLI says what to fix, and nothing was written.
    const cli = await api.docker(['swarm', 'init', '--external-ca', 'protocol=cfssl,url=https://127.0.0.1:1']);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('not supported by Shoal: external CAs (--external-ca)');
    expect(await api.log.highWaterMark()).toBe(0);
    expect((await api.request('POST', '/swarm/init', { socket: true, body: {} })).status).toBe(200);
    expect(await rotationsOn(api)).toEqual([]);
  });

  it('on an API without a root CA, naming what to start with', async () => {
    const bare = await startApi({ initialized: false });
    try {
      const own = operatorCa();
      const refused = await bare.request('POST', '/swarm/init', { socket: true, body: { Spec: { CAConfig: { SigningCACert: own.cert, SigningCAKey: own.key } } } });
      expect(refused.status).toBe(400);
      expect((refused.body as { message: string }).message).toMatch(/^CAConfig.SigningCACert: the cluster has no root CA to rotate: start the API and the dispatchers with SHOAL_CA_DIR/);
      expect(await bare.log.highWaterMark()).toBe(0);
    } finally {
      await bare.close();
    }
  });
});
