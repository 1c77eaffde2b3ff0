import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster } from '@shoal/domain';
import { openRootCaKey, sealRootCaKey } from '../secrets/secret-box';
import { ensureCa } from './cluster-ca';
import { caDigest, issueNodeCertificate, nodeIdentityAmong } from './node-certificates';
import { ClusterRootCa, certificatesOf, issuerOf, newRoot, pemBundle, rootKeyPem } from './root-rotation';
import { newKeyPair } from './x509-builder';

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
