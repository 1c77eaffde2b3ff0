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
import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { CertificateIssuer } from '@shoal/contracts';
import type { Cluster } from '@shoal/domain';
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
