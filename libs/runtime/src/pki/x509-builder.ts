/**
 * Writes X.509 v3 certificates (RFC 5280) with ECDSA P-256 keys, signed with SHA-256:
 * a self-signed CA, and leaf certificates it signs for servers (SANs) and clients (the role
 * in the subject's OU). Node 20 can parse certificates (X509Certificate) but not make
 * them; this module is the making, on der.ts, with node:crypto for keys and signatures.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import {
  bitString,
  boolean,
  children,
  explicit,
  implicitPrimitive,
  namedBits,
  octetString,
  oid,
  readElement,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from './der';

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** KeyUsage bits (RFC 5280 4.2.1.3). */
const DIGITAL_SIGNATURE = 0;
const KEY_CERT_SIGN = 5;
const CRL_SIGN = 6;

/** A subject: its common name, and optionally an organisation and one unit (the role). */
export interface DistinguishedName {
  readonly commonName: string;
  readonly organization?: string;
  readonly organizationalUnit?: string;
}

/** A node's certificate ('node') serves and dials: a manager's dispatcher answers with it, an agent calls with it. */
export type CertificateKind = 'ca' | 'server' | 'client' | 'node';

export interface CertificateOptions {
  readonly kind: CertificateKind;
  readonly subject: DistinguishedName;
  /** The key the certificate is for. */
  readonly publicKey: KeyObject;
  /** Who signs: none for a self-signed CA (then `signingKey` is the subject's own private key). */
  readonly issuer?: X509Certificate;
  readonly signingKey: KeyObject;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** A server's names: DNS names and IP addresses (v4 or v6), as the client dials them. */
  readonly hosts?: readonly string[];
  /** Default: 16 random bytes. */
  readonly serial?: Buffer;
}

const name = (dn: DistinguishedName): Buffer => {
  const rdn = (type: string, value: string): Buffer => set(sequence(oid(type), utf8String(value)));
  return sequence(
    ...(dn.organization ? [rdn(OID.organization, dn.organization)] : []),
    ...(dn.organizationalUnit ? [rdn(OID.organizationalUnit, dn.organizationalUnit)] : []),
    rdn(OID.commonName, dn.commonName),
  );
};

const extension = (id: string, critical: boolean, value: Buffer): Buffer =>
  sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));

/** The bytes of a SubjectPublicKeyInfo's key (its BIT STRING without the unused-bits byte). */
const keyBits = (spki: Buffer): Buffer => {
  const [, key] = children(readElement(spki));
  if (!key) throw new Error('SubjectPublicKeyInfo without a key');
  return key.contents.subarray(1);
};

/** RFC 5280 4.2.1.2 method (1): SHA-1 of the key's bits. */
const keyIdentifier = (spki: Buffer): Buffer => createHash('sha1').update(keyBits(spki)).digest();

/** The issuer's subject as it encoded it (a chain matches names byte for byte). */
const subjectOf = (certificate: X509Certificate): Buffer => {
  const [tbs] = children(readElement(certificate.raw));
  if (!tbs) throw new Error('certificate without a TBSCertificate');
  const fields = children(tbs);
  // [0] version, serial, signature, issuer, validity, subject, …
  const subject = fields[(fields[0]!.tag === 0xa0 ? 1 : 0) + 4];
  if (!subject) throw new Error('certificate without a subject');
  return subject.encoded;
};

const ipBytes = (address: string): Buffer => {
  if (isIP(address) === 4) return Buffer.from(address.split('.').map(Number));
  const [head = '', tail = ''] = address.split('::');
  const groups = (part: string): number[] => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const left = groups(head);
  const right = address.includes('::') ? groups(tail) : [];
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const out = Buffer.alloc(16);
  all.forEach((group, i) => out.writeUInt16BE(group, i * 2));
  return out;
};

const subjectAltNames = (hosts: readonly string[]): Buffer =>
  sequence(...hosts.map((host) => (isIP(host) ? implicitPrimitive(7, ipBytes(host)) : implicitPrimitive(2, Buffer.from(host, 'ascii')))));

const extendedUsages = (kind: Exclude<CertificateKind, 'ca'>): readonly string[] =>
  kind === 'server' ? [OID.serverAuth] : kind === 'client' ? [OID.clientAuth] : [OID.serverAuth, OID.clientAuth];

/** Builds and signs a certificate; returns it parsed (its PEM is `.toString()`). */
export const buildCertificate = (options: CertificateOptions): X509Certificate => {
  if (!(options.notAfter > options.notBefore)) throw new Error('certificate: notAfter must be after notBefore');
  if (options.kind === 'server' && (options.hosts ?? []).length === 0) throw new Error('a server certificate needs at least one host name or address');
  const spki = options.publicKey.export({ type: 'spki', format: 'der' });
  const issuerSpki = options.issuer ? options.issuer.publicKey.export({ type: 'spki', format: 'der' }) : spki;
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const serial = Buffer.from(options.serial ?? randomBytes(16));
  serial[0]! &= 0x7f; // positive, as RFC 5280 asks
  serial[0]! |= 0x01; // and never zero
  const extensions =
    options.kind === 'ca'
      ? [
          // No path length limit, as SwarmKit's roots have none: a rotation's cross-signed root is an intermediate below this one.
          extension(OID.basicConstraints, true, sequence(boolean(true))),
          extension(OID.keyUsage, true, namedBits([DIGITAL_SIGNATURE, KEY_CERT_SIGN, CRL_SIGN])),
        ]
      : [
          extension(OID.basicConstraints, true, sequence()),
          extension(OID.keyUsage, true, namedBits([DIGITAL_SIGNATURE])),
          extension(OID.extKeyUsage, false, sequence(...extendedUsages(options.kind).map(oid))),
          ...(options.hosts && options.hosts.length > 0 ? [extension(OID.subjectAltName, false, subjectAltNames(options.hosts))] : []),
        ];
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serial),
    algorithm,
    options.issuer ? subjectOf(options.issuer) : name(options.subject),
    sequence(time(options.notBefore), time(options.notAfter)),
    name(options.subject),
    spki,
    explicit(
      3,
      sequence(
        ...extensions,
        extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(spki))),
        extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, keyIdentifier(issuerSpki)))),
      ),
    ),
  );
  const signature = sign('sha256', tbs, options.signingKey);
  const der = sequence(tbs, algorithm, bitString(signature));
  return new X509Certificate(der);
};

/** A new ECDSA P-256 key pair. */
export const newKeyPair = (): { readonly publicKey: KeyObject; readonly privateKey: KeyObject } =>
  generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

/** A private key as PKCS#8 PEM, the form Go's tls.X509KeyPair and Node's tls both read. */
export const privateKeyPem = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();
