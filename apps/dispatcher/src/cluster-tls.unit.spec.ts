import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { X509Certificate } from 'node:crypto';
import type { Cluster } from '@shoal/domain';
import { ClusterRootCa, ensureCa, issueNodeCertificate, issuerOf, newKeyPair, newRoot, nodeIdentity, rootKeyPem } from '@shoal/runtime';
import type { SigningCa } from '@shoal/runtime';
import { ClusterTls } from './cluster-tls';

const DAY = 24 * 60 * 60 * 1000;

describe("the dispatcher's own certificate", () => {
  const ca = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-tls-unit-')));
  const roots = new ClusterRootCa(ca, () => {
    throw new Error('no rotated root here');
  });
  let clock = Date.now();
  const now = () => new Date(clock);

  beforeEach(() => jest.useFakeTimers({ now: clock }));
  afterEach(() => jest.useRealTimers());

  it("is a manager's of the cluster's CA, naming where it is dialled, and is renewed at half its life, long before it ends", () => {
    const tls = new ClusterTls(roots, { instance: 'dispatcher-1', hosts: ['shoal-dispatcher', '10.0.0.1'], now });
    const first = tls.certificate;
    expect(nodeIdentity(first, ca.certificate, now())).toMatchObject({ nodeId: 'dispatcher-1', role: 'manager' });
    expect(first.checkIP('10.0.0.1')).toBe('10.0.0.1');
    expect(first.checkHost('shoal-dispatcher')).toBe('shoal-dispatcher');

    // 44 days on (the timers wait in steps no longer than Node allows): still the first.
    clock += 44 * DAY;
    jest.advanceTimersByTime(44 * DAY);
    expect(tls.certificate).toBe(first);
    // Past half its life: a new one, for a new key, the same manager.
    clock += 2 * DAY;
    jest.advanceTimersByTime(2 * DAY);
    expect(tls.certificate.fingerprint256).not.toBe(first.fingerprint256);
    expect(tls.certificate.publicKey.export({ type: 'spki', format: 'pem' })).not.toBe(first.publicKey.export({ type: 'spki', format: 'pem' }));
    expect(nodeIdentity(tls.certificate, ca.certificate, now())).toMatchObject({ nodeId: 'dispatcher-1', role: 'manager' });
    tls.stop();
  });

  it('stops renewing once stopped', () => {
    const tls = new ClusterTls(roots, { instance: 'dispatcher-2', hosts: ['127.0.0.1'], now });
    const first = tls.certificate;
    tls.stop();
    clock += 60 * DAY;
    jest.advanceTimersByTime(60 * DAY);
    expect(tls.certificate).toBe(first);
  });
});

describe('the dispatcher through a root CA rotation', () => {
  const first = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-tls-rotation-')));
  const next = newRoot(first, 1, new Date());
  const roots = new ClusterRootCa(first, () => rootKeyPem(next));
  const rotated = { root: next.root.toString(), key: 'sealed', issuer: issuerOf(next.root), crossSigned: next.crossSigned.toString(), forceRotate: 1 };
  const tokens = { worker: { digest: '', hash: '', sealed: '' }, manager: { digest: '', hash: '', sealed: '' } };
  let cluster: Cluster | undefined;
  const callerWith = (certificate: X509Certificate) => ({ getAuthContext: () => ({ sslPeerCertificate: { raw: certificate.raw, fingerprint256: certificate.fingerprint256 } }) }) as never;
  const leaf = (signer: SigningCa, nodeId: string) => issueNodeCertificate(signer, { nodeId, role: 'worker', publicKey: newKeyPair().publicKey, now: new Date() });
  const ofNewRoot = leaf({ certificate: next.root, key: next.key }, 'renewed');
  const ofOldRoot = leaf(first, 'unrenewed');

  it('takes certificates of both roots while it runs, serving its own from the old; after it, the new root alone, its own certificate made again from it', () => {
    const tls = new ClusterTls(roots, { instance: 'dispatcher-r', hosts: ['127.0.0.1'], now: () => new Date(), cluster: () => cluster });
    try {
      expect(tls.identify(callerWith(ofOldRoot))).toMatchObject({ nodeId: 'unrenewed', issuer: issuerOf(first.certificate) });
      expect(tls.identify(callerWith(ofNewRoot))).toMatch(/not signed by this cluster's root CA/);
      expect(tls.refresh()).toBe(false);

      cluster = { id: 'c', logLevel: 6, rootRotation: { ...rotated, tokens } } as unknown as Cluster;
      const served = tls.certificate;
      expect(tls.refresh()).toBe(true);
      expect(tls.identify(callerWith(ofNewRoot))).toMatchObject({ nodeId: 'renewed', issuer: issuerOf(next.root) });
      expect(tls.identify(callerWith(ofOldRoot))).toMatchObject({ nodeId: 'unrenewed' });
      expect(tls.certificate).toBe(served);

      cluster = { id: 'c', logLevel: 6, rootCa: rotated } as unknown as Cluster;
      expect(tls.refresh()).toBe(true);
      expect(tls.identify(callerWith(ofNewRoot))).toMatchObject({ nodeId: 'renewed' });
      expect(tls.identify(callerWith(ofOldRoot))).toMatch(/not signed by this cluster's root CA/);
      expect(tls.certificate.verify(next.root.publicKey)).toBe(true);
      expect(nodeIdentity(tls.certificate, next.root, new Date())).toMatchObject({ nodeId: 'dispatcher-r', role: 'manager' });
    } finally {
      tls.stop();
    }
  });
});

