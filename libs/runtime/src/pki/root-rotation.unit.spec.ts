import { execFileSync } from 'node:child_process';
import { X509Certificate, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster } from '@shoal/domain';
import { openRootCaKey, sealRootCaKey } from '../secrets/secret-box';
import { ensureCa } from './cluster-ca';
import { caDigest, issueNodeCertificate, nodeIdentityAmong } from './node-certificates';
import { ClusterRootCa, certificatesOf, issuerOf, newRoot, operatorRoot, operatorRotation, pemBundle, rootKeyPem } from './root-rotation';
import { buildCertificate, newKeyPair, privateKeyPem } from './x509-builder';

const now = new Date();
/** Whom a certificate names and which certificate signed it (its fingerprint); or why it is not a node's. */
const issuedBy = (found: ReturnType<typeof nodeIdentityAmong>): { nodeId: string; issuer: string } | string =>
  typeof found === 'string' ? found : { nodeId: found.identity.nodeId, issuer: found.issuer.fingerprint256 };
const leafOf = (signer: Parameters<typeof issueNodeCertificate>[0], nodeId = 'node1') =>
  issueNodeCertificate(signer, { nodeId, role: 'worker', publicKey: newKeyPair().publicKey, now });

describe('a root CA rotation: the new root and its cross-signed twin', () => {
  const old = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-rotation-old-')));
  const next = newRoot(old, 1, now);

  it('cross-signs the new root with the old: the same subject and key, issued by the old root', () => {
    expect(next.crossSigned.subject).toBe(next.root.subject);
    expect(next.crossSigned.publicKey.equals(next.root.publicKey)).toBe(true);
    expect(next.crossSigned.checkIssued(old.certificate) && next.crossSigned.verify(old.certificate.publicKey)).toBe(true);
    expect(next.crossSigned.ca && next.root.ca).toBe(true);
    expect(issuerOf(next.crossSigned)).toEqual(issuerOf(next.root));
    expect(next.root.checkPrivateKey(next.key)).toBe(true);
  });

  it('a certificate the new key signs chains to the old root through the cross-signed one, and to the new root directly', () => {
    const leaf = leafOf({ certificate: next.root, key: next.key });
    expect(nodeIdentityAmong(leaf, [old.certificate], now)).toMatch(/not signed by this cluster's root CA/);
    expect(issuedBy(nodeIdentityAmong(leaf, [old.certificate], now, [next.crossSigned]))).toEqual({ nodeId: 'node1', issuer: next.crossSigned.fingerprint256 });
    expect(issuedBy(nodeIdentityAmong(leaf, [old.certificate, next.root], now))).toEqual({ nodeId: 'node1', issuer: next.root.fingerprint256 });
    // An intermediate no trusted root signed chains nothing.
    const stranger = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-rotation-stranger-')));
    const elsewhere = newRoot(stranger, 1, now);
    expect(nodeIdentityAmong(leafOf({ certificate: elsewhere.root, key: elsewhere.key }), [old.certificate], now, [elsewhere.crossSigned])).toMatch(/not signed/);
  });

  it('seals the new key under the cluster key, bound to the root: it opens only beside that root', () => {
    const clusterKey = randomBytes(32);
    const sealed = sealRootCaKey(clusterKey, rootKeyPem(next), caDigest(next.root));
    expect(openRootCaKey(clusterKey, sealed, caDigest(next.root))).toBe(rootKeyPem(next));
    expect(() => openRootCaKey(clusterKey, sealed, caDigest(old.certificate))).toThrow(/does not open/);
    expect(() => openRootCaKey(randomBytes(32), sealed, caDigest(next.root))).toThrow(/does not open/);
  });

  it('reads a PEM bundle back into its certificates, in order', () => {
    expect(certificatesOf(pemBundle([old.certificate, next.root])).map((c) => c.fingerprint256)).toEqual([old.certificate.fingerprint256, next.root.fingerprint256]);
    expect(certificatesOf('')).toEqual([]);
  });
});

describe('the cluster root CA at each point of the log', () => {
  const first = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-rotation-first-')));
  const next = newRoot(first, 1, now);
  const sealed = `sealed:${caDigest(next.root)}`;
  const opened: string[] = [];
  const roots = new ClusterRootCa(first, (key, digest) => {
    opened.push(digest);
    if (key !== sealed) throw new Error('the cluster key is locked');
    return rootKeyPem(next);
  });
  const cluster = (fields: Partial<Cluster>): Cluster =>
    ({ id: 'c1', spec: {}, version: 1, tokens: { worker: 'w', manager: 'm' }, createdAt: '', updatedAt: '', logLevel: 6, ...fields }) as unknown as Cluster;
  const kept = { root: next.root.toString(), key: sealed, issuer: issuerOf(next.root), crossSigned: next.crossSigned.toString(), forceRotate: 1 };
  const tokens = { worker: { digest: '', hash: '', sealed: '' }, manager: { digest: '', hash: '', sealed: '' } };

  it("before any rotation: SHOAL_CA_DIR's root, trusted alone, signing everything", () => {
    const state = roots.at(cluster({}));
    expect(state.root.fingerprint256).toBe(first.certificate.fingerprint256);
    expect(state.trustBundle).toBe(first.certificate.toString());
    expect(state.rotating).toBe(false);
    expect(state.forceRotate).toBe(0);
    expect(state.signer()).toMatchObject({ certificate: first.certificate, chain: '' });
    expect(roots.at(undefined).digest).toBe(caDigest(first.certificate));
  });

  it('during a rotation: both roots trusted, the new key signs with the cross-signed root as the chain, the old root still signs what every node verifies', () => {
    const state = roots.at(cluster({ rootRotation: { ...kept, tokens } }));
    expect(state.root.fingerprint256).toBe(first.certificate.fingerprint256);
    expect(state.trusted.map((c) => c.fingerprint256)).toEqual([first.certificate.fingerprint256, next.root.fingerprint256]);
    expect(state.trustBundle).toBe(first.certificate.toString() + next.root.toString());
    expect(state.rotating).toBe(true);
    expect(state.issuer).toEqual(issuerOf(next.root));
    const signer = state.signer();
    expect(signer.certificate.fingerprint256).toBe(next.root.fingerprint256);
    expect(signer.chain).toBe(next.crossSigned.toString());
    expect(issuedBy(nodeIdentityAmong(leafOf(signer), [first.certificate], now, certificatesOf(signer.chain)))).toEqual({ nodeId: 'node1', issuer: next.crossSigned.fingerprint256 });
    expect(state.rootSigner().certificate.fingerprint256).toBe(first.certificate.fingerprint256);
    // The same roots on the log: the same answer, its key opened once.
    const before = opened.length;
    expect(roots.at(cluster({ rootRotation: { ...kept, tokens }, version: 7 }))).toBe(state);
    state.signer();
    expect(opened.length).toBe(before);
  });

  it("after it: the new root alone, signing with its own key; a key that does not open says so when asked to sign, not before", () => {
    const state = roots.at(cluster({ rootCa: kept }));
    expect(state.digest).toBe(caDigest(next.root));
    expect(state.trustBundle).toBe(next.root.toString());
    expect(state.forceRotate).toBe(1);
    expect(state.signer()).toMatchObject({ chain: '' });
    expect(issuedBy(nodeIdentityAmong(leafOf(state.signer()), state.trusted, now))).toEqual({ nodeId: 'node1', issuer: next.root.fingerprint256 });
    expect(nodeIdentityAmong(leafOf(first), state.trusted, now)).toMatch(/not signed/);
    const locked = new ClusterRootCa(first, () => {
      throw new Error('the cluster key is locked');
    }).at(cluster({ rootCa: kept }));
    expect(locked.digest).toBe(caDigest(next.root));
    expect(() => locked.signer()).toThrow(/locked/);
  });
});

describe("a root CA of the operator's own (docker swarm ca --rotate --ca-cert --ca-key)", () => {
  const current = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-operator-current-')));
  const DAY = 24 * 60 * 60 * 1000;
  /** A self-signed certificate of `kind` on a new P-256 key, valid from `from` days to `to` days from now. */
  const made = (options: { kind?: 'ca' | 'node'; from?: number; to?: number; commonName?: string } = {}) => {
    const keys = newKeyPair();
    const certificate = buildCertificate({
      kind: options.kind ?? 'ca',
      subject: { commonName: options.commonName ?? 'Operator root', organization: 'example' },
      publicKey: keys.publicKey,
      signingKey: keys.privateKey,
      notBefore: new Date(now.getTime() + (options.from ?? -1) * DAY),
      notAfter: new Date(now.getTime() + (options.to ?? 3650) * DAY),
    });
    return { cert: certificate.toString(), key: privateKeyPem(keys.privateKey), certificate };
  };
  /** A root as an operator makes one with openssl: its own subject (C, O, CN as PrintableString), extensions and serial. */
  const openssl = (algorithm: string[], days = 3650): { cert: string; key: string } => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-operator-openssl-'));
    execFileSync('openssl', ['req', '-x509', ...algorithm, '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', String(days), '-subj', '/C=NL/O=Example Ops/CN=Example Swarm Root', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], { stdio: 'ignore' });
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  };
  const refusal = (cert: string, key: string) => {
    // Now, not the suite's start: openssl's certificates begin at the second they are made.
    const checked = operatorRoot(cert, key, new Date());
    return checked && 'reason' in checked ? `${checked.field}: ${checked.reason}` : checked;
  };

  it('asks nothing when neither the certificate nor the key is given; a certificate field without a PEM block is none (SwarmKit normalizes it away)', () => {
    expect(operatorRoot('', '', now)).toBeUndefined();
    expect(operatorRoot('not a certificate', '', now)).toBeUndefined();
  });

  it("refuses what SwarmKit's validateCAConfig refuses, in its words", () => {
    const good = made();
    expect(refusal('', good.key)).toBe('CAConfig.SigningCAKey: if a signing CA key is provided, the signing CA cert must also be provided');
    expect(refusal('garbage', good.key)).toBe('CAConfig.SigningCAKey: if a signing CA key is provided, the signing CA cert must also be provided');
    expect(refusal(good.cert, '')).toMatch(/^CAConfig.SigningCACert: there must be at least one valid, reachable external CA corresponding to the desired CA certificate: Shoal has no external CAs \(--external-ca\)/);
    expect(refusal(good.key, good.key)).toBe('CAConfig.SigningCACert: invalid root certificates: {"code":1003,"message":"Failed to parse certificate"}');
    expect(refusal(good.cert, 'not a key')).toBe('CAConfig.SigningCAKey: malformed private key: {"code":2002,"message":"Failed to decode private key"}');
    expect(refusal(good.cert, good.cert)).toBe('CAConfig.SigningCAKey: malformed private key: {"code":2003,"message":"Failed to parse private key"}');
    expect(refusal(good.cert, made().key)).toBe('CAConfig.SigningCAKey: certificate key mismatch');
    expect(refusal(good.cert + made().cert, good.key)).toBe('CAConfig.SigningCACert: the desired CA certificate cannot contain multiple certificates');
    expect(refusal(made({ to: 200 }).cert, '')).toMatch(/external CA/);
    const short = made({ to: 200 });
    expect(refusal(short.cert, short.key)).toBe('CAConfig.SigningCACert: CA certificate expires too soon');
    const expired = made({ from: -30, to: -1 });
    expect(refusal(expired.cert, expired.key)).toMatch(
      /^CAConfig.SigningCACert: error while validating Root CA Certificate: x509: certificate has expired or is not yet valid: current time \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ is after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    const early = made({ from: 2, to: 3650 });
    expect(refusal(early.cert, early.key)).toMatch(/^CAConfig.SigningCACert: error while validating Root CA Certificate: x509: certificate has expired or is not yet valid: current time \S+ is before \S+$/);
    const leaf = made({ kind: 'node' });
    expect(refusal(leaf.cert, leaf.key)).toBe('CAConfig.SigningCACert: unable to generate a cross-signed certificate for root rotation: certificate not a CA');
  });

  it('refuses, beyond SwarmKit, an intermediate for a root and an RSA key (Shoal signs with ECDSA)', () => {
    const keys = newKeyPair();
    const intermediate = buildCertificate({ kind: 'ca', subject: { commonName: 'Below' }, publicKey: keys.publicKey, issuer: current.certificate, signingKey: current.key, notBefore: now, notAfter: new Date(now.getTime() + 3000 * DAY) });
    expect(refusal(intermediate.toString(), privateKeyPem(keys.privateKey))).toBe('CAConfig.SigningCACert: the desired CA certificate is not self-signed: give a root CA, not an intermediate');
    const rsa = openssl(['-newkey', 'rsa:2048', '-sha256']);
    expect(refusal(rsa.cert, rsa.key)).toMatch(/^CAConfig.SigningCAKey: the root CA key must be ECDSA/);
    const sha1 = openssl(['-newkey', 'rsa:2048', '-sha1']);
    expect(refusal(sha1.cert, sha1.key)).toBe('CAConfig.SigningCACert: unsupported signature algorithm: SHA1-RSA');
    expect(refusal(rsa.cert, openssl(['-newkey', 'rsa:2048', '-sha256']).key)).toBe('CAConfig.SigningCAKey: certificate key mismatch');
  });

  it("takes the operator's root as it is, and cross-signs it by the root in use: a certificate its key signs chains to either", () => {
    const given = openssl(['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384']);
    const checked = operatorRoot(given.cert, given.key, new Date());
    if (!checked || 'reason' in checked) throw new Error(`refused: ${JSON.stringify(checked)}`);
    const next = operatorRotation(current, checked);
    expect(next.root.raw).toEqual(new X509Certificate(given.cert).raw);
    expect(next.root.checkPrivateKey(next.key)).toBe(true);
    expect(next.crossSigned.subject).toBe(next.root.subject);
    expect(next.crossSigned.serialNumber).toBe(next.root.serialNumber);
    expect(next.crossSigned.publicKey.equals(next.root.publicKey)).toBe(true);
    expect(next.crossSigned.ca).toBe(true);
    expect(next.crossSigned.checkIssued(current.certificate) && next.crossSigned.verify(current.certificate.publicKey)).toBe(true);
    expect(new Date(next.crossSigned.validTo).getTime()).toBeLessThanOrEqual(new Date(current.certificate.validTo).getTime());
    expect(issuerOf(next.crossSigned)).toEqual(issuerOf(next.root));
    // A node certificate signed with the operator's key: through the cross-signed root to the old one, and directly to the operator's.
    const at = new Date(new Date(next.root.validFrom).getTime() + 1000);
    const leaf = issueNodeCertificate({ certificate: next.root, key: next.key }, { nodeId: 'node1', role: 'worker', publicKey: newKeyPair().publicKey, now: at });
    expect(issuedBy(nodeIdentityAmong(leaf, [current.certificate], at, [next.crossSigned]))).toEqual({ nodeId: 'node1', issuer: next.crossSigned.fingerprint256 });
    expect(issuedBy(nodeIdentityAmong(leaf, [next.root], at))).toEqual({ nodeId: 'node1', issuer: next.root.fingerprint256 });
    // As OpenSSL verifies a chain for a peer that trusts only the old root.
    const dir = mkdtempSync(join(tmpdir(), 'shoal-operator-chain-'));
    writeFileSync(join(dir, 'old.pem'), current.pem);
    writeFileSync(join(dir, 'cross.pem'), next.crossSigned.toString());
    writeFileSync(join(dir, 'leaf.pem'), leaf.toString());
    expect(execFileSync('openssl', ['verify', '-attime', String(Math.floor(at.getTime() / 1000)), '-CAfile', join(dir, 'old.pem'), '-untrusted', join(dir, 'cross.pem'), join(dir, 'leaf.pem')], { encoding: 'utf8' })).toMatch(/: OK/);
  });

  it("and a later rotation cross-signs Shoal's next root by the operator's", () => {
    const given = made({ commonName: 'Operator root, then replaced' });
    const checked = operatorRoot(given.cert, given.key, now);
    if (!checked || 'reason' in checked) throw new Error('refused');
    const later = newRoot({ certificate: checked.root, key: checked.key }, 2, now);
    expect(later.crossSigned.checkIssued(checked.root) && later.crossSigned.verify(checked.root.publicKey)).toBe(true);
  });
});
