/**
 * Join tokens at the door: a node opens a session with the cluster's worker or manager
 * token, in SwarmKit's SWMTKN-1-<cluster digest>-<secret> shape. The token names the role
 * the node joins as. A token of another cluster, or one rotated out, is refused with a
 * reason the operator can act on.
 *
 * Rotation stops new joins with the old token, not the nodes that joined with it (as in
 * Docker, where rotating never touches existing nodes): a node the cluster already has may
 * come back with a token the cluster once had.
 */
import type { JoinTokens, NodeRole } from '@shoal/contracts';

export type TokenCheck = { readonly ok: true; readonly role: NodeRole } | { readonly ok: false; readonly reason: string };

/** SWMTKN-1-<digest>-<secret>: the digest names the cluster, the secret the kind and its rotation. */
const TOKEN_SHAPE = /^SWMTKN-1-([0-9a-z]+)-([0-9a-z]+)$/;

/** Compares in time that depends on the length only, not on where the strings first differ. */
const sameSecret = (a: string, b: string): boolean => {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
};

const digestOf = (token: string): string | undefined => TOKEN_SHAPE.exec(token)?.[1];

export const checkJoinToken = (tokens: JoinTokens | undefined, presented: string): TokenCheck => {
  if (!tokens) return { ok: false, reason: 'the cluster is not initialized yet: no join token is valid' };
  const token = presented.trim();
  if (token === '') return { ok: false, reason: 'a join token is required (docker swarm join-token worker)' };
  const digest = digestOf(token);
  if (digest === undefined) return { ok: false, reason: 'invalid join token: expected the SWMTKN-1-<digest>-<secret> shape' };
  // Both are compared, always, so the answer takes as long for either kind.
  const worker = sameSecret(token, tokens.worker);
  const manager = sameSecret(token, tokens.manager);
  if (manager) return { ok: true, role: 'manager' };
  if (worker) return { ok: true, role: 'worker' };
  if (digest !== digestOf(tokens.worker) && digest !== digestOf(tokens.manager)) {
    return { ok: false, reason: 'invalid join token: it belongs to another cluster' };
  }
  return { ok: false, reason: 'invalid join token: it is not a current token of this cluster (it may have been rotated)' };
};

/**
 * Admits a session: the current tokens for anyone; a former token of this cluster only
 * for a node the cluster already has (`known`), reconnecting.
 */
export const admitNode = (
  tokens: JoinTokens | undefined,
  presented: string,
  options: { readonly known: boolean; readonly former: ReadonlyMap<string, NodeRole> },
): TokenCheck => {
  const check = checkJoinToken(tokens, presented);
  if (check.ok || !options.known) return check;
  const role = options.former.get(presented.trim());
  return role === undefined ? check : { ok: true, role };
};
