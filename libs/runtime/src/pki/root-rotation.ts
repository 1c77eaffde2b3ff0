/**
 * The cluster's root CA over time, and its rotation (`docker swarm ca --rotate`) as SwarmKit
 * makes it: a new root with a key of its own, and the same root cross-signed by the root in
 * use, so that a certificate the new key signs chains to either. While the rotation runs,
 * node certificates are signed with the new key (the cross-signed certificate as their
 * intermediate) and nodes are given both roots to trust; the dispatcher's own certificate is
 * still the old root's, which every node trusts until it renews. Evolve ends the rotation
 * once every node's certificate is of the new root (evolve-cluster.ts): from then on the new
 * root alone is trusted, and signs everything.
 *
 * The first root is SHOAL_CA_DIR's; every later one lives on the log (Cluster.rootCa), its
 * key sealed under the cluster key, so that every API and dispatcher with that key has it.
 */
import { X509Certificate, createHash, createPrivateKey, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { CertificateIssuer } from '@shoal/contracts';
import type { Cluster } from '@shoal/domain';
import { bitString, children, explicit, implicitPrimitive, octetString, oid, readElement, sequence, smallInteger, time } from './der';
import { buildCertificate, newKeyPair, privateKeyPem } from './x509-builder';
import { caDigest, trustInfo } from './node-certificates';
import type { SigningCa } from './node-certificates';

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
/** A minute's grace for clocks a little behind this one. */
const BACKDATE_MS = 60 * 1000;

/** Every certificate in a PEM bundle, in order. */
export const certificatesOf = (pem: string): X509Certificate[] =>
  (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((block) => new X509Certificate(block));

/** Certificates as one PEM bundle, each as X509Certificate writes it: the form nodes are given and report back. */
export const pemBundle = (certificates: readonly X509Certificate[]): string => certificates.map((certificate) => certificate.toString()).join('');

/** A CA certificate as Docker's TLSInfo names an issuer. */
export const issuerOf = (certificate: X509Certificate): CertificateIssuer => {
  const info = trustInfo(certificate);
  return { subject: info.issuerSubject, publicKey: info.issuerPublicKey };
};

export interface NewRoot {
  readonly root: X509Certificate;
  readonly key: KeyObject;
  /** The new root's subject and key, signed by the root in use. */
  readonly crossSigned: X509Certificate;
}

/** A new root (ten years) and its cross-signed twin, signed by `current`, valid while both are. */
export const newRoot = (current: SigningCa, rotation: number, now: Date): NewRoot => {
  const keys = newKeyPair();
  const subject = { commonName: `Shoal cluster root CA, rotation ${rotation}`, organization: 'shoal' };
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  const notAfter = new Date(now.getTime() + 10 * YEAR_MS);
  const root = buildCertificate({ kind: 'ca', subject, publicKey: keys.publicKey, signingKey: keys.privateKey, notBefore, notAfter });
  const currentEnd = new Date(current.certificate.validTo);
  const crossSigned = buildCertificate({
    kind: 'ca',
    subject,
    publicKey: keys.publicKey,
    issuer: current.certificate,
    signingKey: current.key,
    notBefore,
    notAfter: currentEnd < notAfter ? currentEnd : notAfter,
  });
  return { root, key: keys.privateKey, crossSigned };
};

/** Who signs node certificates, and the intermediates (PEM) that go after each. */
export interface NodeSigner extends SigningCa {
  readonly chain: string;
}

/** The cluster's root CA as it stands at one point of the log. */
export interface RootCaState {
  /** The root the cluster has: nodes joining pin it by the join tokens' digest. */
  readonly root: X509Certificate;
  readonly pem: string;
  readonly digest: string;
  /** The roots a node's certificate may be of: the root, and during a rotation the new one. */
  readonly trusted: readonly X509Certificate[];
  /** What nodes are given to trust, and report back once they do: the trusted roots' PEMs in one bundle. */
  readonly trustBundle: string;
  /** The issuer every node's certificate should be of: the rotation's new root during one, else the root. */
  readonly issuer: CertificateIssuer;
  readonly rotating: boolean;
  /** Docker's CAConfig.ForceRotate: that of the last rotation asked for, 0 before any. */
  readonly forceRotate: number;
  /** Signs node certificates: the new root's key during a rotation (its cross-signed certificate the intermediate), else the root's. Throws while the key cannot be opened (the cluster key locked). */
  signer(): NodeSigner;
  /** Signs what every node must verify (a dispatcher's own certificate): the root's key, which every node trusts. */
  rootSigner(): SigningCa;
}

/** Opens a root key the log keeps sealed (ClusterKeyring.openRootCaKey). */
export type RootKeyOpener = (sealed: string, rootDigest: string) => string;

/**
 * The root CA at each point of the log: SHOAL_CA_DIR's until a rotation's root takes over.
 * The last answer is kept while the cluster's roots stay the same, keys opened once.
 */
export class ClusterRootCa {
  private last?: { readonly key: string; readonly state: RootCaState };

  constructor(
    readonly first: SigningCa & { readonly pem: string },
    private readonly openKey: RootKeyOpener,
  ) {}

  at(cluster: Cluster | undefined): RootCaState {
    const key = `${cluster?.rootCa?.root ?? ''}\n${cluster?.rootRotation?.root ?? ''}\n${cluster?.rootRotation?.forceRotate ?? cluster?.rootCa?.forceRotate ?? 0}`;
    if (this.last?.key === key) return this.last.state;
    const state = this.make(cluster);
    this.last = { key, state };
    return state;
  }

  private make(cluster: Cluster | undefined): RootCaState {
    const kept = cluster?.rootCa;
    const rotation = cluster?.rootRotation;
    const root = kept ? new X509Certificate(kept.root) : this.first.certificate;
    const digest = caDigest(root);
    const rootKey = once(() => (kept ? this.opened(kept.key, digest) : this.first.key));
    const next = rotation ? new X509Certificate(rotation.root) : undefined;
    const trusted = next ? [root, next] : [root];
    const signer = once((): NodeSigner => {
      if (!rotation || !next) return { certificate: root, key: rootKey(), chain: '' };
      const crossSigned = new X509Certificate(rotation.crossSigned);
      // Signed with the new key, named by the new root's subject: the leaf verifies against the new root, or through the cross-signed one against the old.
      return { certificate: next, key: this.opened(rotation.key, caDigest(next)), chain: crossSigned.toString() };
    });
    return {
      root,
      pem: root.toString(),
      digest,
      trusted,
      trustBundle: pemBundle(trusted),
      issuer: rotation ? rotation.issuer : kept ? kept.issuer : issuerOf(root),
      rotating: rotation !== undefined,
      forceRotate: rotation?.forceRotate ?? kept?.forceRotate ?? 0,
      signer,
      rootSigner: () => ({ certificate: root, key: rootKey() }),
    };
  }

  private opened(sealed: string, digest: string): KeyObject {
    return createPrivateKey(this.openKey(sealed, digest));
  }
}

/** A thunk whose value is made at its first call (a failure is not kept: the next call tries again). */
const once = <T>(make: () => T): (() => T) => {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};

/** The key of a new root as the log keeps it, before sealing: PKCS#8 PEM. */
export const rootKeyPem = (root: NewRoot): string => privateKeyPem(root.key);

// ── A root of the operator's own (`docker swarm ca --rotate --ca-cert --ca-key`) ──────────

const ONE_YEAR_MS = 8760 * 60 * 60 * 1000;
const OIDS = {
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  authorityKeyIdentifier: '2.5.29.35',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
} as const;
/** The signature algorithms SwarmKit takes for a root (ca.validateSignatureAlgorithm), by Go's names for them. */
const SIGNATURE_ALGORITHMS: Readonly<Record<string, { readonly name: string; readonly supported: boolean }>> = {
  '1.2.840.113549.1.1.4': { name: 'MD5-RSA', supported: false },
  '1.2.840.113549.1.1.5': { name: 'SHA1-RSA', supported: false },
  '1.2.840.113549.1.1.10': { name: 'SHA256-RSAPSS', supported: false },
  '1.2.840.10040.4.3': { name: 'DSA-SHA1', supported: false },
  '1.2.840.10045.4.1': { name: 'ECDSA-SHA1', supported: false },
  '1.3.101.112': { name: 'Ed25519', supported: false },
  '1.2.840.113549.1.1.11': { name: 'SHA256-RSA', supported: true },
  '1.2.840.113549.1.1.12': { name: 'SHA384-RSA', supported: true },
  '1.2.840.113549.1.1.13': { name: 'SHA512-RSA', supported: true },
  '1.2.840.10045.4.3.2': { name: 'ECDSA-SHA256', supported: true },
  '1.2.840.10045.4.3.3': { name: 'ECDSA-SHA384', supported: true },
  '1.2.840.10045.4.3.4': { name: 'ECDSA-SHA512', supported: true },
};
/** The curves SwarmKit takes for an ECDSA root (ca.ensureCertKeyMatch). */
const ROOT_CURVES = ['prime256v1', 'secp384r1', 'secp521r1'];

/** A dotted OID from its DER contents. */
const dottedOid = (contents: Buffer): string => {
  const arcs: number[] = [];
  let value = 0;
  for (const byte of contents) {
    value = value * 128 + (byte & 0x7f);
    if (byte & 0x80) continue;
    if (arcs.length === 0) arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
    else arcs.push(value);
    value = 0;
  }
  return arcs.join('.');
};

/** A certificate's parts as written: the TBSCertificate's fields by name, its extensions by OID, and its signature algorithm. */
interface CertificateParts {
  readonly serial: Buffer;
  readonly subject: Buffer;
  readonly spki: Buffer;
  readonly extensions: ReadonlyArray<{ readonly id: string; readonly encoded: Buffer; readonly value: Buffer }>;
  readonly signatureAlgorithm: string;
}

const partsOf = (certificate: X509Certificate): CertificateParts => {
  const [tbs, algorithm] = children(readElement(certificate.raw));
  if (!tbs || !algorithm) throw new Error('certificate without a TBSCertificate');
  const fields = children(tbs);
  const at = fields[0]?.tag === 0xa0 ? 1 : 0;
  const [serial, , , , subject, spki] = fields.slice(at);
  if (!serial || !subject || !spki) throw new Error('certificate without a subject or key');
  const wrapped = fields.find((field) => field.tag === 0xa3);
  const extensions = wrapped
    ? children(children(wrapped)[0]!).map((extension) => {
        const parts = children(extension);
        return { id: dottedOid(parts[0]!.contents), encoded: extension.encoded, value: parts[parts.length - 1]!.contents };
      })
    : [];
  return { serial: serial.encoded, subject: subject.encoded, spki: spki.encoded, extensions, signatureAlgorithm: dottedOid(children(algorithm)[0]!.contents) };
};

/** The key identifier a certificate names itself by (its SubjectKeyIdentifier), or as Shoal's certificates name it (SHA-1 of the key's bits). */
const keyIdOf = (parts: CertificateParts): Buffer => {
  const own = parts.extensions.find((extension) => extension.id === OIDS.subjectKeyIdentifier);
  return own ? readElement(own.value).contents : methodOneKeyId(parts.spki);
};
const methodOneKeyId = (spki: Buffer): Buffer => createHash('sha1').update(children(readElement(spki))[1]!.contents.subarray(1)).digest();

/** Go's x509 words for a certificate outside its validity (the times as RFC 3339, to the second). */
const goTime = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Every PEM block of a bundle, headers dropped (SwarmKit's ca.NormalizePEMs): its type and bytes. */
const pemBlocks = (pem: string): { readonly type: string; readonly der: Buffer }[] =>
  [...pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g)].map((match) => ({
    type: match[1]!,
    der: Buffer.from(match[2]!.replace(/^[\w-]+:.*$/gm, '').replace(/\s+/g, ''), 'base64'),
  }));

/** A root CA the operator gives, checked: its certificate and key. */
export interface OperatorRoot {
  readonly root: X509Certificate;
  readonly key: KeyObject;
}

/** Why a root the operator gave is refused: the SwarmSpec field it is about, and SwarmKit's words (controlapi's validateCAConfig, ca.NewRootCA) or Shoal's where Shoal asks more. */
export interface OperatorRootRefusal {
  readonly field: 'CAConfig.SigningCACert' | 'CAConfig.SigningCAKey';
  readonly reason: string;
}

/**
 * A root the operator gives for a rotation (Docker's SwarmSpec.CAConfig SigningCACert and
 * SigningCAKey, `docker swarm ca --rotate --ca-cert --ca-key`), checked as SwarmKit's
 * validateCAConfig checks it, in its order and with its words: undefined when neither is
 * given. Shoal asks three things more, as it signs with the key itself: the certificate is
 * self-signed (a root, not an intermediate), a CA whose key usage lets it sign certificates,
 * and its key is ECDSA (Shoal's certificates are ECDSA with SHA-256); and a subject key
 * identifier, if it has one, is the SHA-1 of its key (the one Shoal's certificates name
 * their issuer by). No refusal quotes the key.
 */
export const operatorRoot = (certPem: string, keyPem: string, now: Date): OperatorRoot | OperatorRootRefusal | undefined => {
  const cert = (reason: string): OperatorRootRefusal => ({ field: 'CAConfig.SigningCACert', reason });
  const key = (reason: string): OperatorRootRefusal => ({ field: 'CAConfig.SigningCAKey', reason });
  const blocks = pemBlocks(certPem);
  if (blocks.length === 0) return keyPem.length > 0 ? key('if a signing CA key is provided, the signing CA cert must also be provided') : undefined;
  if (keyPem.length === 0) {
    return cert(
      'there must be at least one valid, reachable external CA corresponding to the desired CA certificate: Shoal has no external CAs (--external-ca), so a root of your own needs its key too (docker swarm ca --rotate --ca-cert FILE --ca-key FILE)',
    );
  }
  const certificates: X509Certificate[] = [];
  for (const block of blocks) {
    try {
      certificates.push(new X509Certificate(block.der));
    } catch {
      return cert('invalid root certificates: {"code":1003,"message":"Failed to parse certificate"}');
    }
  }
  for (const certificate of certificates) {
    const algorithm = partsOf(certificate).signatureAlgorithm;
    const known = SIGNATURE_ALGORITHMS[algorithm];
    if (!known?.supported) return cert(`unsupported signature algorithm: ${known?.name ?? algorithm}`);
    const from = new Date(certificate.validFrom);
    const to = new Date(certificate.validTo);
    const invalid = 'error while validating Root CA Certificate: x509: certificate has expired or is not yet valid: current time';
    if (now < from) return cert(`${invalid} ${goTime(now)} is before ${goTime(from)}`);
    if (now > to) return cert(`${invalid} ${goTime(now)} is after ${goTime(to)}`);
  }
  const [root] = certificates as [X509Certificate];
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: keyPem, format: 'pem' });
  } catch {
    const reason = !/-----BEGIN [A-Z0-9 ]+-----/.test(keyPem)
      ? '{"code":2002,"message":"Failed to decode private key"}'
      : /Proc-Type:.*ENCRYPTED/.test(keyPem)
        ? '{"code":2100,"message":"Private key is encrypted."}'
        : '{"code":2003,"message":"Failed to parse private key"}';
    return key(`malformed private key: ${reason}`);
  }
  const publicKey = root.publicKey;
  if (publicKey.asymmetricKeyType === 'rsa') {
    if ((publicKey.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) return key('unsupported RSA key parameters');
  } else if (publicKey.asymmetricKeyType === 'ec') {
    if (!ROOT_CURVES.includes(publicKey.asymmetricKeyDetails?.namedCurve ?? '')) return key('unsupported ECDSA key parameters');
  } else return key('unknown or unsupported certificate public key algorithm');
  if (privateKey.type !== 'private' || !root.checkPrivateKey(privateKey)) return key('certificate key mismatch');
  if (certificates.length !== 1) return cert('the desired CA certificate cannot contain multiple certificates');
  if (new Date(root.validTo).getTime() < now.getTime() + ONE_YEAR_MS) return cert('CA certificate expires too soon');
  // SwarmKit finds these when it cross-signs (an Internal error there); Shoal answers them as the 400 they are.
  if (!root.ca) return cert('unable to generate a cross-signed certificate for root rotation: certificate not a CA');
  if (publicKey.asymmetricKeyType !== 'ec') return key('the root CA key must be ECDSA (P-256, P-384 or P-521): Shoal signs node certificates with ECDSA and SHA-256');
  if (!root.checkIssued(root) || !root.verify(publicKey)) return cert('the desired CA certificate is not self-signed: give a root CA, not an intermediate');
  const parts = partsOf(root);
  const usage = parts.extensions.find((extension) => extension.id === OIDS.keyUsage);
  if (usage && !allowsCertSign(readElement(usage.value).contents)) return cert('the desired CA certificate’s key usage does not allow signing certificates (keyCertSign)');
  if (!keyIdOf(parts).equals(methodOneKeyId(parts.spki))) return cert('the desired CA certificate’s subject key identifier is not the SHA-1 of its key (RFC 5280 method 1), which Shoal names it by in the certificates it signs');
  return { root, key: privateKey };
};

/** Whether a KeyUsage BIT STRING's contents set keyCertSign (bit 5). */
const allowsCertSign = (bits: Buffer): boolean => bits.length > 1 && ((bits[1]! >> (7 - 5)) & 1) === 1;

/**
 * The rotation to a root the operator gave: its certificate and key as they are, and its
 * twin cross-signed by the root in use, as SwarmKit's RootCA.CrossSignCACertificate makes
 * it: the same subject, key, serial and extensions, issued by `current` (its subject, and its
 * key identifier as the authority's), from the root's own start until the earlier of the
 * two ends.
 */
export const operatorRotation = (current: SigningCa, given: OperatorRoot): NewRoot => {
  const parts = partsOf(given.root);
  const issuer = partsOf(current.certificate);
  const notAfter = new Date(Math.min(new Date(given.root.validTo).getTime(), new Date(current.certificate.validTo).getTime()));
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    parts.serial,
    sequence(oid(OIDS.ecdsaWithSha256)),
    issuer.subject,
    sequence(time(new Date(given.root.validFrom)), time(notAfter)),
    parts.subject,
    parts.spki,
    explicit(
      3,
      sequence(
        ...parts.extensions.filter((extension) => extension.id !== OIDS.authorityKeyIdentifier).map((extension) => extension.encoded),
        sequence(oid(OIDS.authorityKeyIdentifier), octetString(sequence(implicitPrimitive(0, keyIdOf(issuer))))),
      ),
    ),
  );
  const signature = sign('sha256', tbs, current.key);
  const crossSigned = new X509Certificate(sequence(tbs, sequence(oid(OIDS.ecdsaWithSha256)), bitString(signature)));
  return { root: new X509Certificate(given.root.raw), key: given.key, crossSigned };
};
