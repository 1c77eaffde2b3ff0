/**
 * The NodeCA gRPC service (dispatcher.proto), served beside the Dispatcher when the cluster
 * has a root CA: the root's certificate for anyone (a joining node pins it by the digest in
 * its token), a first certificate for a node that presents a current join token (its kind
 * gives the role; the node gets a fresh id), and the next certificate for a node that holds
 * a valid one and has not been removed. Tokens are checked against the view's cluster, which
 * a standby has as well as the active instance; nothing here is written to the log, and no
 * token or key is ever logged. During a root rotation the new root's key signs, and a node is
 * given both roots to trust (root-rotation.ts).
 */
import { status } from '@grpc/grpc-js';
import type { ServerUnaryCall, sendUnaryData, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { ClusterState } from '@shoal/domain';
import { checkJoinToken } from '@shoal/domain';
import type { GetRootCaCertificateResponse, IssueNodeCertificateRequest, NodeCertificateResponse, RenewNodeCertificateRequest } from '@shoal/protocol';
import { DEFAULT_NODE_CERT_EXPIRY_MS, nodeCertExpiryMs } from '@shoal/contracts';
import { issueNodeCertificate, requestedKey } from '@shoal/runtime';
import type { NodeCertificateRole, NodeSigner } from '@shoal/runtime';
import type { ClusterTls } from './cluster-tls';
import { refusal } from './refusal';

export interface NodeCaDeps {
  readonly tls: ClusterTls;
  /** The view's state, once the dispatcher has one. */
  readonly state: () => ClusterState | undefined;
  /** Whether a node was removed from the cluster (its certificate is then refused). */
  readonly wasRemoved: (nodeId: string, state: ClusterState) => boolean;
  readonly newNodeId: () => string;
  readonly now: () => Date;
  readonly log: (line: string) => void;
}

export class NodeCaService {
  constructor(private readonly deps: NodeCaDeps) {}

  implementation(): UntypedServiceImplementation {
    return {
      getRootCaCertificate: (_call: ServerUnaryCall<object, GetRootCaCertificateResponse>, done: sendUnaryData<GetRootCaCertificateResponse>) =>
        done(null, { certificate: this.deps.tls.current().pem }),
      issueNodeCertificate: (call: ServerUnaryCall<IssueNodeCertificateRequest, NodeCertificateResponse>, done: sendUnaryData<NodeCertificateResponse>) =>
        this.issue(call, done),
      renewNodeCertificate: (call: ServerUnaryCall<RenewNodeCertificateRequest, NodeCertificateResponse>, done: sendUnaryData<NodeCertificateResponse>) =>
        this.renew(call, done),
    };
  }

  private issue(call: ServerUnaryCall<IssueNodeCertificateRequest, NodeCertificateResponse>, done: sendUnaryData<NodeCertificateResponse>): void {
    const state = this.deps.state();
    if (!state) return done(refusal(status.UNAVAILABLE, 'the dispatcher is starting: ask again'));
    const check = checkJoinToken(state.cluster?.tokens, call.request.token ?? '');
    if (!check.ok) return done(refusal(status.UNAUTHENTICATED, check.reason));
    const nodeId = this.deps.newNodeId();
    this.sign(nodeId, check.role, call.request, state, done);
  }

  private renew(call: ServerUnaryCall<RenewNodeCertificateRequest, NodeCertificateResponse>, done: sendUnaryData<NodeCertificateResponse>): void {
    const caller = this.deps.tls.identify(call);
    if (typeof caller === 'string') return done(refusal(status.UNAUTHENTICATED, caller));
    const state = this.deps.state();
    if (!state) return done(refusal(status.UNAVAILABLE, 'the dispatcher is starting: ask again'));
    if (this.deps.wasRemoved(caller.nodeId, state)) {
      return done(refusal(status.PERMISSION_DENIED, `node ${caller.nodeId} was removed from the cluster: join again as a new node with a join token`));
    }
    this.sign(caller.nodeId, caller.role, call.request, state, done);
  }

  /** Signs for the cluster's node certificate expiry as it stands (`docker swarm update --cert-expiry`): a change reaches each node at its next renewal. */
  private sign(nodeId: string, role: NodeCertificateRole, request: RenewNodeCertificateRequest, state: ClusterState, done: sendUnaryData<NodeCertificateResponse>): void {
    const key = requestedKey({ publicKey: request.publicKey ?? '', signature: Buffer.from(request.signature ?? []) });
    if (typeof key === 'string') return done(refusal(status.INVALID_ARGUMENT, key));
    const root = this.deps.tls.current();
    let signer: NodeSigner;
    try {
      signer = root.signer();
    } catch (error) {
      return done(refusal(status.UNAVAILABLE, `the dispatcher cannot sign with the cluster's root CA now: ${(error as Error).message}`));
    }
    const certificate = issueNodeCertificate(signer, {
      nodeId,
      role,
      publicKey: key,
      now: this.deps.now(),
      validityMs: state.cluster ? nodeCertExpiryMs(state.cluster.spec) : DEFAULT_NODE_CERT_EXPIRY_MS,
    });
    this.deps.log(`issued node ${nodeId} a ${role} certificate${root.rotating ? ' of the new root CA (rotation under way)' : ''}, valid to ${certificate.validTo}`);
    // The certificate with its intermediate (a rotation's cross-signed root), and the roots to trust: both during a rotation.
    done(null, { nodeId, certificate: certificate.toString() + signer.chain, ca: root.trustBundle });
  }
}
