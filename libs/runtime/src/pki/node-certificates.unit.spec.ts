import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { buildCertificate, newKeyPair } from './x509-builder';
import { caDigest, certificateRequest, issueNodeCertificate, nodeIdentity, renewalAt, requestedKey, tokenDigest, trustInfo } from './node-certificates';
import type { SigningCa } from './node-certificates';

const NOW = new Date('2026-06-01T12:00:00Z');
const DAY = 24 * 60 * 60 * 1000;

const makeCa = (name = 'Shoal cluster CA', days = 3650): SigningCa => {
  const { publicKey, privateKey } = newKeyPair();
  const certificate = buildCertificate({
    kind: 'ca',
    subject: { commonName: name },
    publicKey,
    signingKey: privateKey,
    notBefore: new Date(NOW.getTime() - DAY),
    notAfter: new Date(NOW.getTime() + days * DAY),
  });
  return { certificate, key: privateKey };
};

describe('node certificates', () => {
  const ca = makeCa();

  it('names the node in the CN and its role in the OU, and identifies it against the CA that signed it', () => {
    const keys = newKeyPair();
    const cert = issueNodeCertificate(ca, { nodeId: 'n1abc', role: 'worker', publicKey: keys.publicKey, now: NOW });
    expect(cert.subject).toContain('OU=swarm-worker');
    expect(cert.subject).toContain('CN=n1abc');
    expect(cert.checkPrivateKey(keys.privateKey)).toBe(true);
    expect(nodeIdentity(cert, ca.certificate, NOW)).toEqual({ nodeId: 'n1abc', role: 'worker', notAfter: new Date(cert.validTo) });
    const manager = issueNodeCertificate(ca, { nodeId: 'm1', role: 'manager', publicKey: keys.publicKey, now: NOW, hosts: ['127.0.0.1'] });
    expect(nodeIdentity(manager.raw, ca.certificate, NOW)).toMatchObject({ nodeId: 'm1', role: 'manager' });
    expect(manager.checkIP('127.0.0.1')).toBe('127.0.0.1');
  });

  it('refuses a certificate of another CA, and one outside its validity', () => {
    const other = makeCa('Another CA');
    const keys = newKeyPair();
    const foreign = issueNodeCertificate(other, { nodeId: 'n1', role: 'manager', publicKey: keys.publicKey, now: NOW });
    expect(nodeIdentity(foreign, ca.certificate, NOW)).toBe("the certificate is not signed by this cluster's root CA");
    const cert = issueNodeCertificate(ca, { nodeId: 'n1', role: 'worker', publicKey: keys.publicKey, now: NOW, validityMs: DAY });
    expect(nodeIdentity(cert, ca.certificate, new Date(NOW.getTime() + 2 * DAY))).toMatch(/^the certificate is not valid now/);
    expect(nodeIdentity(cert, ca.certificate, new Date(NOW.getTime() - 2 * 60 * 1000))).toMatch(/^the certificate is not valid now/);
  });

  it('refuses a certificate of the CA that names no node role', () => {
    const keys = newKeyPair();
    const client = buildCertificate({
      kind: 'client',
      subject: { commonName: 'alice', organizationalUnit: 'operator' },
      publicKey: keys.publicKey,
      issuer: ca.certificate,
      signingKey: ca.key,
      notBefore: NOW,
      notAfter: new Date(NOW.getTime() + DAY),
    });
    expect(nodeIdentity(client, ca.certificate, new Date(NOW.getTime() + 1000))).toMatch(/names no node role/);
  });

  it('never lasts beyond its CA', () => {
    const short = makeCa('short', 10);
    const cert = issueNodeCertificate(short, { nodeId: 'n', role: 'worker', publicKey: newKeyPair().publicKey, now: NOW });
    expect(new Date(cert.validTo).getTime()).toBeLessThanOrEqual(new Date(short.certificate.validTo).getTime());
    const long = issueNodeCertificate(ca, { nodeId: 'n', role: 'worker', publicKey: newKeyPair().publicKey, now: NOW });
    expect(new Date(long.validTo).getTime() - NOW.getTime()).toBeGreaterThan(89 * DAY);
  });

  it('takes a request only with a signature the private key made', () => {
    const keys = newKeyPair();
    const request = certificateRequest(keys.privateKey);
    const key = requestedKey(request);
    expect(typeof key).not.toBe('string');
    const stranger = newKeyPair();
    expect(requestedKey({ publicKey: request.publicKey, signature: certificateRequest(stranger.privateKey).signature })).toMatch(/does not prove the private key/);
    expect(requestedKey({ publicKey: request.publicKey, signature: Buffer.alloc(0) })).toMatch(/does not prove/);
    expect(requestedKey({ publicKey: 'not a key', signature: request.signature })).toBe('public_key is not a PEM public key');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(requestedKey(certificateRequest(rsa.privateKey))).toBe('public_key must be an ECDSA P-256 key');
  });

  it("carries the CA's digest in a join token's shape", () => {
    const digest = caDigest(ca.certificate);
    expect(digest).toMatch(/^[0-9a-z]{50}$/);
    expect(caDigest(ca.certificate.toString())).toBe(digest);
    expect(caDigest(makeCa().certificate)).not.toBe(digest);
    expect(tokenDigest(`SWMTKN-1-${digest}-${'a'.repeat(25)}`)).toBe(digest);
    expect(tokenDigest('SWMTKN-1-short-abc')).toBeUndefined();
    expect(tokenDigest('nonsense')).toBeUndefined();
  });

  it("describes the root CA as Docker's TLSInfo does: its PEM, its subject's DER and its public key's, in base64", () => {
    const info = trustInfo(ca.certificate);
    expect(info.trustRoot).toBe(ca.certificate.toString());
    expect(Buffer.from(info.issuerPublicKey, 'base64')).toEqual(ca.certificate.publicKey.export({ type: 'spki', format: 'der' }));
    const subject = Buffer.from(info.issuerSubject, 'base64');
    // A DER Name (SEQUENCE) holding the CA's common name, and nothing of the certificate around it.
    expect(subject[0]).toBe(0x30);
    expect(subject.includes(Buffer.from('Shoal cluster CA'))).toBe(true);
    expect(subject.length).toBe(subject[1]! + 2);
    expect(ca.certificate.raw.includes(subject)).toBe(true);
  });

  it('renews between half and four fifths of its life', () => {
    const cert = issueNodeCertificate(ca, { nodeId: 'n', role: 'worker', publicKey: newKeyPair().publicKey, now: NOW, validityMs: 100 * DAY });
    const from = new Date(cert.validFrom).getTime();
    const life = new Date(cert.validTo).getTime() - from;
    expect(renewalAt(cert, 0).getTime()).toBe(from + life * 0.5);
    expect(renewalAt(cert, 0.999).getTime()).toBeLessThanOrEqual(from + life * 0.8);
    expect(renewalAt(cert, 5).getTime()).toBeLessThanOrEqual(from + life * 0.8);
    expect(new X509Certificate(cert.raw).validTo).toBe(cert.validTo);
  });
});
