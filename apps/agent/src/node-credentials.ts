/**
 * A node's identity in a cluster with a root CA (the agent's --tls), as a SwarmKit node
 * joins: it takes the root CA's certificate from a dispatcher, refuses it unless its digest
 * is the one the join token carries (the token pins the CA: a dispatcher of another cluster,
 * or someone in the way, is found out here), then asks for its own certificate with the
 * token, over TLS verified against that CA. From then on it calls over mutual TLS with its
 * certificate, and asks for the next one between half and four fifths of the current one's
 * life. With a state directory it keeps its key (0600), certificate and the CA there, and a
 * restart is the same node; without one, each start is a new node.
 *
 * A root CA rotation (`docker swarm ca --rotate`) reaches the node through its renewals,
 * which the dispatcher asks for (the session's renew_certificate): during the rotation the
 * certificate comes from the new root, with the cross-signed root as its intermediate, and
 * with both roots to trust; after it, with the new root alone. The roots to trust are taken
 * only from a dispatcher this node has already verified.
 */
import { X509Certificate, createPrivateKey, randomInt } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { credentials, status } from '@grpc/grpc-js';
import type { ChannelCredentials, Client, ServiceError } from '@grpc/grpc-js';
import { DISPATCHER_TLS_OPTIONS, NodeCaClient } from '@shoal/protocol';
import type { GetRootCaCertificateResponse, IssueNodeCertificateRequest, NodeCertificateResponse, RenewNodeCertificateRequest } from '@shoal/protocol';
import { caDigest, certificateRequest, certificatesOf, managerPeerCheck, newKeyPair, nodeIdentityAmong, pemBundle, privateKeyPem, renewalAt, timerAt, tokenDigest } from '@shoal/runtime';
import type { NodeIdentity } from '@shoal/runtime';

export const NODE_KEY_FILE = 'node-key.pem';
export const NODE_CERT_FILE = 'node-cert.pem';
export const ROOT_CA_FILE = 'root-ca.pem';
/** The digests of every root CA the node has trusted, one a line: a join token of an older root of its cluster is still its cluster's. */
export const ROOTS_SEEN_FILE = 'roots-seen';

const CALL_DEADLINE_MS = 10_000;

/** A refusal that asking again will not change: the join stops with it. */
export class JoinRefused extends Error {}

type Unary<Req, Res> = (request: Req, options: { deadline: Date }, callback: (error: ServiceError | null, response?: Res) => void) => void;

interface NodeCaApi {
  getRootCaCertificate: Unary<object, GetRootCaCertificateResponse>;
  issueNodeCertificate: Unary<IssueNodeCertificateRequest, NodeCertificateResponse>;
  renewNodeCertificate: Unary<RenewNodeCertificateRequest, NodeCertificateResponse>;
}

const ask = <Req, Res>(address: string, creds: ChannelCredentials, method: keyof NodeCaApi, request: Req): Promise<Res> => {
  const client = new NodeCaClient(address, creds, { ...DISPATCHER_TLS_OPTIONS }) as unknown as NodeCaApi & Client;
  return new Promise<Res>((resolve, reject) =>
    (client[method] as unknown as Unary<Req, Res>).call(client, request, { deadline: new Date(Date.now() + CALL_DEADLINE_MS) }, (error, response) => {
      client.close();
      if (error) reject(error);
      else resolve(response!);
    }),
  );
};

/** Codes a dispatcher answers that asking again will not change. */
const FINAL = new Set<number>([status.UNAUTHENTICATED, status.PERMISSION_DENIED, status.INVALID_ARGUMENT, status.UNIMPLEMENTED]);

export interface NodeCredentialsOptions {
  readonly stateDir?: string;
  readonly now?: () => Date;
  readonly log?: (line: string) => void;
}

interface Held {
  readonly key: KeyObject;
  readonly certificate: X509Certificate;
  /** The certificates between it and a root (a rotation's cross-signed root), sent with it. */
  readonly intermediates: readonly X509Certificate[];
  /** The root CAs the node trusts: the one its token pinned, and whatever a verified dispatcher has given since. */
  readonly trust: readonly X509Certificate[];
  /** The digests of every root it has trusted, the current ones among them (roots rotated out stay). */
  readonly seen: readonly string[];
  readonly identity: NodeIdentity;
}

/** `seen` with the digests of `trust` added. */
const withSeen = (seen: readonly string[], trust: readonly X509Certificate[]): string[] => [...new Set([...seen, ...trust.map((root) => caDigest(root))])];

export class NodeCredentials {
  private held: Held;
  private cancelRenewal?: () => void;
  private readonly now: () => Date;
  private readonly say: (line: string) => void;
  private readonly renewed = new Set<() => void>();

  private constructor(
    held: Held,
    private readonly options: NodeCredentialsOptions,
  ) {
    this.held = held;
    this.now = options.now ?? (() => new Date());
    this.say = options.log ?? (() => undefined);
  }

  /**
   * The node's credentials: those kept in the state directory while valid, else new ones
   * from the first dispatcher that answers, pinned by the token. Transient failures (no
   * dispatcher answers, a standby starting) are tried again, each address in turn; a
   * refusal (the token, the CA's digest) ends the join with a JoinRefused.
   */
  static async join(dispatchers: readonly string[], joinToken: string, options: NodeCredentialsOptions = {}): Promise<NodeCredentials> {
    const now = options.now ?? (() => new Date());
    const digest = tokenDigest(joinToken);
    const kept = NodeCredentials.kept(options.stateDir, now());
    // A token of another root CA (the node sent to another cluster) is a join anew, not the old certificate; one of a
    // root the node trusted before its cluster rotated the root (a token kept in the node's settings) is still its cluster's.
    if (kept && (digest === undefined || kept.seen.includes(digest))) return new NodeCredentials(kept, options);
    if (kept) options.log?.(`the node's certificate in ${options.stateDir} is of another root CA than the join token's: joining anew`);
    if (digest === undefined) throw new JoinRefused('the join token is not a SWMTKN-1-<root CA digest>-<secret> token: copy it whole from `docker swarm join-token worker`');
    for (let attempt = 0; ; attempt += 1) {
      const address = dispatchers[attempt % dispatchers.length]!;
      try {
        const held = await NodeCredentials.issue(address, joinToken, digest, now);
        const credentialsValue = new NodeCredentials(held, options);
        credentialsValue.keep();
        options.log?.(`node ${held.identity.nodeId}: ${held.identity.role} certificate from the dispatcher at ${address}, valid to ${held.certificate.validTo}`);
        return credentialsValue;
      } catch (error) {
        if (error instanceof JoinRefused) throw error;
        const code = (error as ServiceError).code;
        if (code !== undefined && FINAL.has(code)) throw new JoinRefused(`the dispatcher at ${address} refused the join: ${(error as ServiceError).details}`);
        options.log?.(`joining through ${address}: ${(error as Error).message}; trying again`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 500 * (attempt + 1))));
      }
    }
  }

  private static kept(stateDir: string | undefined, now: Date): Held | undefined {
    if (!stateDir) return undefined;
    const paths = [NODE_KEY_FILE, NODE_CERT_FILE, ROOT_CA_FILE].map((file) => join(stateDir, file));
    if (!paths.every((path) => existsSync(path))) return undefined;
    const key = createPrivateKey(readFileSync(paths[0]!));
    const [certificate, ...intermediates] = certificatesOf(readFileSync(paths[1]!, 'utf8'));
    const trust = certificatesOf(readFileSync(paths[2]!, 'utf8'));
    if (!certificate) return undefined;
    const found = nodeIdentityAmong(certificate, trust, now, intermediates);
    const seenPath = join(stateDir, ROOTS_SEEN_FILE);
    const seen = withSeen(existsSync(seenPath) ? readFileSync(seenPath, 'utf8').split('\n').filter(Boolean) : [], trust);
    // Expired (the agent was down past it) or otherwise unusable: join again, as a new node.
    return typeof found === 'string' || !certificate.checkPrivateKey(key) ? undefined : { key, certificate, intermediates, trust, seen, identity: found.identity };
  }

  private static async issue(address: string, joinToken: string, digest: string, now: () => Date): Promise<Held> {
    // The CA is not known yet: take what the dispatcher presents, and trust it only if its digest is the token's.
    const unverified = credentials.createSsl(null, null, null, { rejectUnauthorized: false, checkServerIdentity: () => undefined });
    const root = await ask<object, GetRootCaCertificateResponse>(address, unverified, 'getRootCaCertificate', {});
    const ca = new X509Certificate(root.certificate);
    if (caDigest(ca) !== digest) {
      throw new JoinRefused(
        `the dispatcher at ${address} presented a root CA whose digest is not the join token's: the token is of another cluster, or something stands between this node and the dispatcher`,
      );
    }
    const keys = newKeyPair();
    const request = certificateRequest(keys.privateKey);
    const pinned = credentials.createSsl(Buffer.from(root.certificate), null, null, { checkServerIdentity: managerPeerCheck });
    const answer = await ask<IssueNodeCertificateRequest, NodeCertificateResponse>(address, pinned, 'issueNodeCertificate', { token: joinToken, ...request });
    const held = NodeCredentials.accept(answer, keys.privateKey, now());
    if (!held.trust.some((root) => caDigest(root) === digest)) throw new JoinRefused(`the dispatcher at ${address} gave roots to trust without the one the join token pins`);
    return held;
  }

  /**
   * An issued certificate, once it is for this key, valid, and of one of the roots the
   * answer gives to trust (directly, or through the intermediate it came with). The answer
   * came from a dispatcher whose certificate this node verified against the roots it trusts.
   */
  private static accept(answer: NodeCertificateResponse, key: KeyObject, now: Date): Held {
    const [certificate, ...intermediates] = certificatesOf(answer.certificate);
    const trust = certificatesOf(answer.ca);
    if (!certificate || trust.length === 0) throw new JoinRefused('the dispatcher answered without a certificate or without the roots to trust');
    const found = nodeIdentityAmong(certificate, trust, now, intermediates);
    if (typeof found === 'string') throw new JoinRefused(`the certificate the dispatcher issued is not usable: ${found}`);
    if (!certificate.checkPrivateKey(key)) throw new JoinRefused("the certificate the dispatcher issued is not for this node's key");
    return { key, certificate, intermediates, trust, seen: withSeen([], trust), identity: found.identity };
  }

  get nodeId(): string {
    return this.held.identity.nodeId;
  }

  get role(): NodeIdentity['role'] {
    return this.held.identity.role;
  }

  get certificate(): X509Certificate {
    return this.held.certificate;
  }

  /** The root CAs the node trusts, as one PEM bundle: what its sessions report (Docker's node TLSInfo.TrustRoot). */
  get trustRoot(): string {
    return pemBundle(this.held.trust);
  }

  /** What a channel to a dispatcher dials with: this node's certificate and its intermediates, the roots it trusts, a manager at the other end. */
  channelCredentials(): ChannelCredentials {
    return credentials.createSsl(Buffer.from(this.trustRoot), Buffer.from(privateKeyPem(this.held.key)), Buffer.from(pemBundle([this.held.certificate, ...this.held.intermediates])), {
      checkServerIdentity: managerPeerCheck,
    });
  }

  /**
   * Renews now, as a dispatcher asked (a root CA rotation), unless a renewal is under way:
   * errors are said, and the next ask or the renewal window tries again.
   */
  renewNow(address: string): void {
    if (this.renewing) return;
    this.renewing = this.renew(address)
      .catch(() => undefined)
      .finally(() => (this.renewing = undefined));
  }

  private renewing?: Promise<void>;

  /** Tells `listener` each time a new certificate is in use. */
  onRenewed(listener: () => void): void {
    this.renewed.add(listener);
  }

  /** Asks for the next certificate in its window, through `dispatcher()` (the one in use then); a minute later again on failure. */
  scheduleRenewal(dispatcher: () => string): void {
    this.renewDispatcher = dispatcher;
    this.at(renewalAt(this.held.certificate, randomInt(0, 1_000_000) / 1_000_000).getTime());
  }

  private renewDispatcher?: () => string;

  /** Renews at `time` (ms since the epoch). */
  private at(time: number): void {
    this.cancelRenewal?.();
    this.cancelRenewal = timerAt(time, () => this.now().getTime(), () => {
      const dispatcher = this.renewDispatcher;
      if (dispatcher) this.renew(dispatcher()).catch(() => this.at(this.now().getTime() + 60_000));
    });
  }

  /** Asks `address` for the next certificate now (for a new key), and uses it from then on. */
  async renew(address: string): Promise<void> {
    const keys = newKeyPair();
    try {
      const answer = await ask<RenewNodeCertificateRequest, NodeCertificateResponse>(address, this.channelCredentials(), 'renewNodeCertificate', certificateRequest(keys.privateKey));
      const accepted = NodeCredentials.accept(answer, keys.privateKey, this.now());
      if (accepted.identity.nodeId !== this.nodeId) throw new Error(`the renewed certificate names node ${accepted.identity.nodeId}, not ${this.nodeId}`);
      const held = { ...accepted, seen: withSeen(this.held.seen, accepted.trust) };
      this.held = held;
      this.keep();
      this.say(`node ${this.nodeId}: certificate renewed, valid to ${held.certificate.validTo}`);
      for (const listener of this.renewed) listener();
      if (this.renewDispatcher) this.scheduleRenewal(this.renewDispatcher);
    } catch (error) {
      this.say(`node ${this.nodeId}: renewing its certificate failed (${(error as Error).message})`);
      throw error;
    }
  }

  stop(): void {
    this.cancelRenewal?.();
    this.cancelRenewal = undefined;
    this.renewDispatcher = undefined;
  }

  /** Writes the key (0600), the certificate and the CA to the state directory, each replaced whole. */
  private keep(): void {
    const dir = this.options.stateDir;
    if (!dir) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const write = (file: string, text: string, mode: number): void => {
      const temporary = join(dir, `.${file}.new`);
      writeFileSync(temporary, text, { mode });
      chmodSync(temporary, mode);
      renameSync(temporary, join(dir, file));
    };
    write(NODE_KEY_FILE, privateKeyPem(this.held.key), 0o600);
    write(NODE_CERT_FILE, pemBundle([this.held.certificate, ...this.held.intermediates]), 0o644);
    write(ROOT_CA_FILE, this.trustRoot, 0o644);
    write(ROOTS_SEEN_FILE, `${this.held.seen.join('\n')}\n`, 0o644);
  }
}
