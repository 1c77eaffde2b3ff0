/**
 * The dispatcher's side of the cluster's mutual TLS, as SwarmKit's managers serve it: one
 * port where a node with a certificate of the root CA is known by it (its id in the CN, its
 * role in the OU) and a node without one may only ask the CA for one (NodeCA). The server
 * answers with a manager certificate of its own, signed by the same CA; it asks every
 * client for a certificate and takes the connection without one, so that joining works,
 * and each method then says whom it serves.
 *
 * A certificate another CA signed is refused as SwarmKit's handshake refuses it: the
 * connection is closed as soon as its handshake is done, before any call (foreign). One of
 * this CA out of its validity leaves the connection unauthorised: its calls are served as
 * those of a node without a certificate.
 *
 * The root is the cluster's as the view has it (root-rotation.ts): during a rotation a
 * node's certificate may be of the old root or the new, and the server's own is the old
 * root's, which every node trusts until it renews; once the rotation ends, only the new root
 * is trusted and the server's certificate is made again from it (refresh).
 */
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { experimental, type ServerCredentials } from '@grpc/grpc-js';
import type { ServerSurfaceCall } from '@grpc/grpc-js/build/src/server-call';
import type { CertificateIssuer } from '@shoal/contracts';
import type { Cluster } from '@shoal/domain';
import { issueNodeCertificate, issuerOf, newKeyPair, nodeIdentityAmong, privateKeyPem, renewalAt, timerAt } from '@shoal/runtime';
import type { ClusterRootCa, NodeIdentity, RootCaState } from '@shoal/runtime';

const MAX_KNOWN = 10_000;

/** What the TLS layer says of a certificate of a trusted root that is only out of its dates. */
const DATE_ERRORS = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

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

  private readonly caListeners = new Set<CaListener>();

  constructor(
    private ca: Buffer,
    private identity: { certificate: Buffer; privateKey: Buffer },
  ) {}

  /** The roots to trust from now on. */
  replaceCa(ca: Buffer): void {
    this.ca = ca;
    for (const listener of this.caListeners) listener({ caCertificate: ca });
  }

  /** The server's next certificate, from now on. */
  replace(identity: { certificate: Buffer; privateKey: Buffer }): void {
    this.identity = identity;
    for (const listener of this.identityListeners) listener(identity);
  }

  addCaCertificateListener(listener: CaListener): void {
    this.caListeners.add(listener);
    queueMicrotask(() => listener({ caCertificate: this.ca }));
  }

  removeCaCertificateListener(listener: CaListener): void {
    this.caListeners.delete(listener);
  }

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
  /** The cluster as the view has it now (its root CA, a rotation under way); undefined before the view has one. */
  readonly cluster?: () => Cluster | undefined;
}

/** A node as its certificate names it, and the issuer of that certificate (Docker's node TLSInfo). */
export type CallerIdentity = NodeIdentity & { readonly issuer: CertificateIssuer };

export class ClusterTls {
  private certificateValue: X509Certificate;
  private readonly provider: ServingCertificates;
  private readonly credentials: ServerCredentials;
  private readonly now: () => Date;
  /** Identities already checked, by certificate fingerprint: a node calls many times on one connection. */
  private readonly known = new Map<string, CallerIdentity>();
  private cancelRenewal?: () => void;
  /** The root CA the server's certificate and the known identities are of. */
  private served: RootCaState;

  constructor(
    readonly roots: ClusterRootCa,
    private readonly options: ClusterTlsOptions,
  ) {
    this.now = options.now;
    this.served = this.current();
    const first = this.issue();
    this.certificateValue = first.certificate;
    this.provider = new ServingCertificates(Buffer.from(this.served.trustBundle), first.identity);
    // Not required: a joining node has none yet. The methods decide (identify).
    this.credentials = experimental.createCertificateProviderServerCredentials(this.provider, this.provider, false);
    this.renewAt(renewalAt(this.certificateValue, 0).getTime());
  }

  /** The server's certificate now: a manager's of the cluster's CA, renewed at half its life. */
  get certificate(): X509Certificate {
    return this.certificateValue;
  }

  /** The cluster's root CA as the view has it now. */
  current(): RootCaState {
    return this.roots.at(this.options.cluster?.());
  }

  /**
   * Follows the cluster's root CA: when a rotation starts or ends, the roots a node's
   * certificate may be of change, and once it ends the server's certificate is made again
   * from the new root. True when it changed.
   */
  refresh(): boolean {
    const now = this.current();
    if (now === this.served) return false;
    const before = this.served;
    this.served = now;
    if (now.digest !== before.digest) {
      try {
        this.replaceCertificate();
      } catch (error) {
        // The new root's key does not open here (the cluster key locked, or another): serve as before, and try again at the next refresh.
        this.served = before;
        throw error;
      }
    }
    this.known.clear();
    this.provider.replaceCa(Buffer.from(now.trustBundle));
    return true;
  }

  private issue(): { certificate: X509Certificate; identity: { certificate: Buffer; privateKey: Buffer } } {
    const keys = newKeyPair();
    const certificate = issueNodeCertificate(this.served.rootSigner(), { nodeId: this.options.instance, role: 'manager', publicKey: keys.publicKey, now: this.now(), hosts: this.options.hosts });
    return { certificate, identity: { certificate: Buffer.from(certificate.toString()), privateKey: Buffer.from(privateKeyPem(keys.privateKey)) } };
  }

  private replaceCertificate(): void {
    const next = this.issue();
    this.certificateValue = next.certificate;
    this.provider.replace(next.identity);
    this.renewAt(renewalAt(next.certificate, 0).getTime());
  }

  private renewAt(time: number): void {
    this.cancelRenewal?.();
    this.cancelRenewal = timerAt(time, () => this.now().getTime(), () => this.replaceCertificate());
  }

  /** Stops renewing the server's certificate. */
  stop(): void {
    this.cancelRenewal?.();
  }

  serverCredentials(): ServerCredentials {
    return this.credentials;
  }

  /** Who is calling: the node its certificate names and who issued that certificate, or why it is not a node of this cluster. */
  /**
   * Whether a connection just through its handshake presented a certificate of another CA:
   * the TLS layer could not chain it to the roots served (for a reason other than its dates),
   * and the methods' own check (nodeIdentityAmong) does not take it either. Not one with no
   * certificate (a node joining) nor one of this CA out of its dates (its calls are refused
   * by the methods, UNAUTHENTICATED).
   */
  foreign(socket: Pick<TLSSocket, 'authorized' | 'authorizationError' | 'getPeerCertificate'>): boolean {
    if (socket.authorized) return false;
    const error = socket.authorizationError as unknown as string | { code?: string } | undefined;
    const code = typeof error === 'string' ? error : error?.code;
    if (code === undefined || DATE_ERRORS.has(code)) return false;
    const peer = socket.getPeerCertificate();
    if (!peer?.raw) return false;
    return typeof nodeIdentityAmong(peer.raw, this.served.trusted, this.now()) === 'string';
  }

  identify(call: Pick<ServerSurfaceCall, 'getAuthContext'>): CallerIdentity | string {
    const peer = call.getAuthContext().sslPeerCertificate;
    if (!peer?.raw) return 'a node certificate of this cluster is required: join with a join token first (shoal agent --tls --join-token …)';
    const now = this.now();
    const seen = this.known.get(peer.fingerprint256);
    if (seen && seen.notAfter > now) return seen;
    const found = nodeIdentityAmong(peer.raw, this.served.trusted, now);
    if (typeof found === 'string') return found;
    const identity = { ...found.identity, issuer: issuerOf(found.issuer) };
    if (this.known.size >= MAX_KNOWN) this.known.clear();
    this.known.set(peer.fingerprint256, identity);
    return identity;
  }
}
