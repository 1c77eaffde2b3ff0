/**
 * The dispatcher's side of the cluster's mutual TLS, as SwarmKit's managers serve it: one
 * port where a node with a certificate of the root CA is known by it (its id in the CN, its
 * role in the OU) and a node without one may only ask the CA for one (NodeCA). The server
 * answers with a manager certificate of its own, signed by the same CA; it asks every
 * client for a certificate and takes the connection without one, so that joining works,
 * and each method then says whom it serves.
 *
 * A certificate the CA did not sign, or one out of its validity, leaves the connection
 * unauthorised: its calls are served as those of a node without a certificate.
 */
import type { X509Certificate } from 'node:crypto';
import { experimental, type ServerCredentials } from '@grpc/grpc-js';
import type { ServerSurfaceCall } from '@grpc/grpc-js/build/src/server-call';
import { issueNodeCertificate, newKeyPair, nodeIdentity, privateKeyPem } from '@shoal/runtime';
import type { NodeIdentity, SigningCa } from '@shoal/runtime';

const MAX_KNOWN = 10_000;

type CaListener = experimental.CaCertificateUpdateListener;
type IdentityListener = experimental.IdentityCertificateUpdateListener;

/**
 * The CA and the server's own certificate, as grpc-js watches them. Told to listeners on the
 * next tick, as a provider that reads files would: grpc-js adds the server's own watcher only
 * after the listener, and an answer given at once would reach no one.
 */
class ServingCertificates implements experimental.CertificateProvider {
  constructor(
    private readonly ca: Buffer,
    private readonly identity: { certificate: Buffer; privateKey: Buffer },
  ) {}

  addCaCertificateListener(listener: CaListener): void {
    queueMicrotask(() => listener({ caCertificate: this.ca }));
  }

  removeCaCertificateListener(): void {}

  addIdentityCertificateListener(listener: IdentityListener): void {
    queueMicrotask(() => listener(this.identity));
  }

  removeIdentityCertificateListener(): void {}
}

export interface ClusterTlsOptions {
  /** The dispatcher's id, its certificate's CN. */
  readonly instance: string;
  /** Names and addresses agents dial it at (its certificate's SANs). */
  readonly hosts: readonly string[];
  readonly now: () => Date;
}

export class ClusterTls {
  readonly certificate: X509Certificate;
  private readonly credentials: ServerCredentials;

  constructor(
    readonly ca: SigningCa & { readonly pem: string },
    options: ClusterTlsOptions,
  ) {
    const keys = newKeyPair();
    this.certificate = issueNodeCertificate(ca, { nodeId: options.instance, role: 'manager', publicKey: keys.publicKey, now: options.now(), hosts: options.hosts });
    const provider = new ServingCertificates(Buffer.from(ca.pem), { certificate: Buffer.from(this.certificate.toString()), privateKey: Buffer.from(privateKeyPem(keys.privateKey)) });
    // Not required: a joining node has none yet. The methods decide (identify).
    this.credentials = experimental.createCertificateProviderServerCredentials(provider, provider, false);
    this.now = options.now;
  }

  private readonly now: () => Date;
  /** Identities already checked, by certificate fingerprint: a node calls many times on one connection. */
  private readonly known = new Map<string, NodeIdentity>();

  serverCredentials(): ServerCredentials {
    return this.credentials;
  }

  /** Who is calling: the node its certificate names, or why it is not a node of this cluster. */
  identify(call: Pick<ServerSurfaceCall, 'getAuthContext'>): NodeIdentity | string {
    const peer = call.getAuthContext().sslPeerCertificate;
    if (!peer?.raw) return 'a node certificate of this cluster is required: join with a join token first (shoal agent --tls --join-token …)';
    const now = this.now();
    const seen = this.known.get(peer.fingerprint256);
    if (seen && seen.notAfter > now) return seen;
    const identity = nodeIdentity(peer.raw, this.ca.certificate, now);
    if (typeof identity !== 'string') {
      if (this.known.size >= MAX_KNOWN) this.known.clear();
      this.known.set(peer.fingerprint256, identity);
    }
    return identity;
  }
}
