/**
 * Nodes' identities, as SwarmKit gives them: the cluster's root CA signs each node a
 * certificate whose CN is the node's id and whose OU is its role (`swarm-manager` or
 * `swarm-worker`), valid both to serve and to dial. A node asks for one with its public key
 * and a join token, and proves it holds the private key by signing the request; the token's
 * digest part is the root CA's digest, so the node can pin the CA it is given before it
 * trusts it (SWMTKN-1-<digest>-<secret>).
 */
import { X509Certificate, createHash, createPublicKey, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import { DEFAULT_NODE_CERT_EXPIRY_MS } from '@shoal/contracts';
import { base36 } from '../object-id';
import { children, readElement } from './der';
import { buildCertificate } from './x509-builder';

export const NODE_ROLES = { manager: 'swarm-manager', worker: 'swarm-worker' } as const;
export type NodeCertificateRole = keyof typeof NODE_ROLES;

/** A minute's grace for clocks a little behind the issuer's. */
const BACKDATE_MS = 60 * 1000;

/** The root CA's digest as a join token carries it: SHA-256 of its DER, in 50 base-36 characters. */
export const caDigest = (ca: X509Certificate | string): string => {
  const certificate = typeof ca === 'string' ? new X509Certificate(ca) : ca;
  return base36(createHash('sha256').update(certificate.raw).digest(), 50);
};

/** The digest part of a SWMTKN-1 token, or undefined when it is not one. */
export const tokenDigest = (token: string): string | undefined => /^SWMTKN-1-([0-9a-z]{50})-[0-9a-z]+$/.exec(token.trim())?.[1];

/** What a node signs to show it holds the key it asks a certificate for. */
const possessionPayload = (spkiDer: Buffer): Buffer => Buffer.concat([Buffer.from('shoal node certificate request\n'), spkiDer]);

export interface CertificateRequest {
  /** The node's public key, SubjectPublicKeyInfo in PEM. */
  readonly publicKey: string;
  /** Its signature over the key (SHA-256), made with the private half. */
  readonly signature: Buffer;
}

/** A request for a certificate for `privateKey`'s public half. */
export const certificateRequest = (privateKey: KeyObject): CertificateRequest => {
  const publicKey = createPublicKey(privateKey);
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  return { publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), signature: sign('sha256', possessionPayload(spki), privateKey) };
};

/** The request's key, once its signature shows the caller holds the private half; else why not. */
export const requestedKey = (request: CertificateRequest): KeyObject | string => {
  let key: KeyObject;
  try {
    key = createPublicKey(request.publicKey);
  } catch {
    return 'public_key is not a PEM public key';
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') return 'public_key must be an ECDSA P-256 key';
  const spki = key.export({ type: 'spki', format: 'der' });
  const proven = request.signature.length > 0 && verify('sha256', possessionPayload(spki), key, request.signature);
  return proven ? key : 'signature does not prove the private key: sign the public key with it';
};

export interface SigningCa {
  readonly certificate: X509Certificate;
  readonly key: KeyObject;
}

export interface NodeCertificateOptions {
  readonly nodeId: string;
  readonly role: NodeCertificateRole;
  readonly publicKey: KeyObject;
  readonly now: Date;
  /** Default DEFAULT_NODE_CERT_EXPIRY_MS (SwarmKit's 90 days); never beyond the CA's own end. */
  readonly validityMs?: number;
  /** Names and addresses it is dialled at, when it serves (a manager's dispatcher). */
  readonly hosts?: readonly string[];
}

/** Signs a node's certificate: CN its id, OU its role, O `shoal`. */
export const issueNodeCertificate = (ca: SigningCa, options: NodeCertificateOptions): X509Certificate => {
  const caEnd = new Date(ca.certificate.validTo);
  const asked = new Date(options.now.getTime() + (options.validityMs ?? DEFAULT_NODE_CERT_EXPIRY_MS));
  return buildCertificate({
    kind: 'node',
    subject: { commonName: options.nodeId, organization: 'shoal', organizationalUnit: NODE_ROLES[options.role] },
    publicKey: options.publicKey,
    issuer: ca.certificate,
    signingKey: ca.key,
    notBefore: new Date(options.now.getTime() - BACKDATE_MS),
    notAfter: asked < caEnd ? asked : caEnd,
    ...(options.hosts && options.hosts.length > 0 ? { hosts: options.hosts } : {}),
  });
};

export interface NodeIdentity {
  readonly nodeId: string;
  readonly role: NodeCertificateRole;
  readonly notAfter: Date;
}

const field = (subject: string, name: string): string | undefined =>
  subject
    .split('\n')
    .map((line) => line.split('='))
    .find(([key]) => key === name)?.[1];

/**
 * Who a certificate says it is, when `ca` signed it and it is valid at `now`; else why it
 * does not identify a node of this cluster.
 */
export const nodeIdentity = (certificate: X509Certificate | Buffer, ca: X509Certificate, now: Date): NodeIdentity | string => {
  const cert = certificate instanceof X509Certificate ? certificate : new X509Certificate(certificate);
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return "the certificate is not signed by this cluster's root CA";
  if (now < new Date(cert.validFrom) || now > new Date(cert.validTo)) return `the certificate is not valid now (valid ${cert.validFrom} to ${cert.validTo})`;
  const ou = field(cert.subject, 'OU');
  const role = (Object.keys(NODE_ROLES) as NodeCertificateRole[]).find((key) => NODE_ROLES[key] === ou);
  const nodeId = field(cert.subject, 'CN');
  if (role === undefined || !nodeId) return 'the certificate names no node role (OU swarm-manager or swarm-worker) and node id (CN)';
  return { nodeId, role, notAfter: new Date(cert.validTo) };
};

/**
 * Who a certificate says it is, when one of `roots` signed it, directly or through one of
 * `intermediates` that a root signed (a rotation's cross-signed root); and the certificate
 * that signed it, whose subject and key are the issuer Docker's TLSInfo shows. Else why not.
 */
export const nodeIdentityAmong = (
  certificate: X509Certificate | Buffer,
  roots: readonly X509Certificate[],
  now: Date,
  intermediates: readonly X509Certificate[] = [],
): { readonly identity: NodeIdentity; readonly issuer: X509Certificate } | string => {
  const cert = certificate instanceof X509Certificate ? certificate : new X509Certificate(certificate);
  let why = "the certificate is not signed by this cluster's root CA";
  const chained = intermediates.filter((intermediate) => roots.some((root) => typeof caIssued(intermediate, root, now) !== 'string'));
  for (const issuer of [...roots, ...chained]) {
    const identity = nodeIdentity(cert, issuer, now);
    if (typeof identity !== 'string') return { identity, issuer };
    if (cert.checkIssued(issuer) && cert.verify(issuer.publicKey)) why = identity;
  }
  return why;
};

/** Whether `root` signed the CA certificate `ca` and it is valid at `now`; else why not. */
const caIssued = (ca: X509Certificate, root: X509Certificate, now: Date): true | string => {
  if (!ca.ca) return 'not a CA certificate';
  if (!ca.checkIssued(root) || !ca.verify(root.publicKey)) return 'not signed by the root';
  return now < new Date(ca.validFrom) || now > new Date(ca.validTo) ? 'not valid now' : true;
};

/**
 * When a node asks for its next certificate: at a point between half and four fifths of
 * the current one's life (SwarmKit's window), `jitter` in [0, 1) choosing where.
 */
export const renewalAt = (certificate: X509Certificate, jitter: number): Date => {
  const from = new Date(certificate.validFrom).getTime();
  const to = new Date(certificate.validTo).getTime();
  return new Date(from + (to - from) * (0.5 + 0.3 * Math.min(Math.max(jitter, 0), 0.999)));
};

/**
 * A TLS client's check of a dispatcher (tls' checkServerIdentity): a manager of the cluster,
 * as its certificate's OU says; the chain to the pinned root CA is TLS's own check. Names are
 * not checked, as SwarmKit does not: a manager is dialled at whatever address reaches it.
 */
export const managerPeerCheck = (_host: string, certificate: PeerCertificate): Error | undefined => {
  const ou = certificate.subject?.OU;
  return (Array.isArray(ou) ? ou.includes(NODE_ROLES.manager) : ou === NODE_ROLES.manager)
    ? undefined
    : new Error(`the dispatcher's certificate is not a manager's (OU ${String(ou)})`);
};

/** A root CA as Docker's TLSInfo shows it: the PEM, and the issuer's subject and public key, DER in base64. */
export interface TrustInfo {
  readonly trustRoot: string;
  readonly issuerSubject: string;
  readonly issuerPublicKey: string;
}

export const trustInfo = (ca: X509Certificate): TrustInfo => {
  const [tbs] = children(readElement(ca.raw));
  if (!tbs) throw new Error('certificate without a TBSCertificate');
  const fields = children(tbs);
  // [0] version, serial, signature, issuer, validity, subject, …
  const subject = fields[(fields[0]!.tag === 0xa0 ? 1 : 0) + 4];
  if (!subject) throw new Error('certificate without a subject');
  return {
    trustRoot: ca.toString(),
    issuerSubject: subject.encoded.toString('base64'),
    issuerPublicKey: ca.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
};

/** The longest a timer may wait in Node (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs `action` once `now()` (ms since the epoch) reaches `time`, waiting in steps no timer
 * exceeds (a certificate's renewal is weeks away); the timers keep no process alive. The
 * returned function cancels it.
 */
export const timerAt = (time: number, now: () => number, action: () => void): (() => void) => {
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    timer = setTimeout(() => (now() < time ? arm() : action()), Math.min(Math.max(time - now(), 0), MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
};
