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
import { issueNodeCertificate, newKeyPair, nodeIdentity, privateKeyPem, renewalAt, timerAt } from '@shoal/runtime';
import type { NodeIdentity, SigningCa } from '@shoal/runtime';

const MAX_KNOWN = 10_000;

type CaListener = experimental.CaCertificateUpdateListener;
type IdentityListener = experimental.IdentityCertificateUpdateListener;

/**
 * The CA and the server's own certificate, as grpc-js watches them: a new certificate is
 * told to every listener. Told on the next tick, as a provider that reads files would:
 * grpc-js adds the server's own watcher only after the listener, and an answer given at
 * once would reach no one.
 */
class ServingCertificates implements experimental.CertificateProvider {
  private readonly identityListeners = new Set<IdentityListener>();

  constructor(
    private readonly ca: Buffer,
    private identity: { certificate: Buffer; privateKey: Buffer },
  ) {}

  /** The server's next certificate, from now on. */
  replace(identity: { certificate: Buffer; privateKey: Buffer }): void {
    this.identity = identity;
    for (const listener of this.identityListeners) listener(identity);
  }

  addCaCertificateListener(listener: CaListener): void {
    queueMicrotask(() => listener({ caCertificate: this.ca }));
  }

  removeCaCertificateListener(): void {}

  addIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.add(listener);
    queueMicrotask(() => listener(this.identity));
  }

  removeIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.delete(listener);
  }
}

export interface ClusterTlsOptions {
  /** The dispatcher's id, its certificate's CN. */
  readonly instance: string;
  /** Names and addresses agents dial it at (its certificate's SANs). */
  readonly hosts: readonly string[];
  readonly now: () => Date;
}

export class ClusterTls {
  private certificateValue: X509Certificate;
  private readonly provider: ServingCertificates;
  private readonly credentials: ServerCredentials;
  private readonly now: () => Date;
  /** Identities already checked, by certificate fingerprint: a node calls many times on one connection. */
  private readonly known = new Map<string, NodeIdentity>();
  private cancelRenewal?: () => void;

  constructor(
    readonly ca: SigningCa & { readonly pem: string },
    private readonly options: ClusterTlsOptions,
  ) {
    this.now = options.now;
    const first = this.issue();
    this.certificateValue = first.certificate;
    this.provider = new ServingCertificates(Buffer.from(ca.pem), first.identity);
    // Not required: a joining node has none yet. The methods decide (identify).
    this.credentials = experimental.createCertificateProviderServerCredentials(this.provider, this.provider, false);
    this.renewAt(renewalAt(this.certificateValue, 0).getTime());
  }

  /** The server's certificate now: a manager's of the cluster's CA, renewed at half its life. */
  get certificate(): X509Certificate {
    return this.certificateValue;
  }

  private issue(): { certificate: X509Certificate; identity: { certificate: Buffer; privateKey: Buffer } } {
    const keys = newKeyPair();
    const certificate = issueNodeCertificate(this.ca, { nodeId: this.options.instance, role: 'manager', publicKey: keys.publicKey, now: this.now(), hosts: this.options.hosts });
    return { certificate, identity: { certificate: Buffer.from(certificate.toString()), privateKey: Buffer.from(privateKeyPem(keys.privateKey)) } };
  }

  private renewAt(time: number): void {
    this.cancelRenewal?.();
    this.cancelRenewal = timerAt(time, () => this.now().getTime(), () => {
      const next = this.issue();
      this.certificateValue = next.certificate;
      this.provider.replace(next.identity);
      this.renewAt(renewalAt(next.certificate, 0).getTime());
    });
  }

  /** Stops renewing the server's certificate. */
  stop(): void {
    this.cancelRenewal?.();
  }

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
