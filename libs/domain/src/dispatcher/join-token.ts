/**
 * Join tokens at the door: a node opens a session with the cluster's worker or manager
 * token, in SwarmKit's SWMTKN-1-<cluster digest>-<secret> shape. The token names the role
 * the node joins as. A token of another cluster, or one rotated out, is refused with a
 * reason the operator can act on.
 *
 * Rotation stops new joins with the old token, not the nodes that joined with it (as in
 * Docker, where rotating never touches existing nodes): a node the cluster already has may
 * come back with a token the cluster once had.
 *
 * The log keeps a token's hash, not the token (from level 5): what a node presents is
 * hashed and compared with it. A token from an older record, kept in the clear, is
 * compared as it is.
 */
import { JOIN_TOKEN_SHAPE, keptTokenDigest } from '@shoal/contracts';
import type { KeptJoinToken, KeptJoinTokens, NodeRole } from '@shoal/contracts';
import { sha256 } from '../hash';

export type TokenCheck = { readonly ok: true; readonly role: NodeRole } | { readonly ok: false; readonly reason: string };


/** Compares in time that depends on the length only, not on where the strings first differ. */
const sameSecret = (a: string, b: string): boolean => {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
};

const digestOf = (token: string): string | undefined => JOIN_TOKEN_SHAPE.exec(token)?.[1];

/** SHA-256 of a join token, hex: what the log keeps of it. */
export const joinTokenHash = (token: string): string => sha256(token);

/** What identifies a kept token, whichever way it is kept: its hash. */
export const keptTokenHash = (kept: KeptJoinToken): string => (typeof kept === 'string' ? joinTokenHash(kept) : kept.hash);

/** Whether `token` (its hash `hash`) is the kept one. */
const isKept = (kept: KeptJoinToken, token: string, hash: string): boolean => (typeof kept === 'string' ? sameSecret(token, kept) : sameSecret(hash, kept.hash));

/** Whether `presented` is the kept token. */
export const isJoinToken = (kept: KeptJoinToken, presented: string): boolean => isKept(kept, presented, joinTokenHash(presented));

export const checkJoinToken = (tokens: KeptJoinTokens | undefined, presented: string): TokenCheck => {
  if (!tokens) return { ok: false, reason: 'the cluster is not initialized yet: no join token is valid' };
  const token = presented.trim();
  if (token === '') return { ok: false, reason: 'a join token is required (docker swarm join-token worker)' };
  const digest = digestOf(token);
  if (digest === undefined) return { ok: false, reason: 'invalid join token: expected the SWMTKN-1-<digest>-<secret> shape' };
  // Both are compared, always, so the answer takes as long for either kind.
  const hash = joinTokenHash(token);
  const worker = isKept(tokens.worker, token, hash);
  const manager = isKept(tokens.manager, token, hash);
  if (manager) return { ok: true, role: 'manager' };
  if (worker) return { ok: true, role: 'worker' };
  if (digest !== keptTokenDigest(tokens.worker) && digest !== keptTokenDigest(tokens.manager)) {
    return { ok: false, reason: 'invalid join token: it belongs to another cluster' };
  }
  return { ok: false, reason: 'invalid join token: it is not a current token of this cluster (it may have been rotated)' };
};

/**
 * Admits a session: the current tokens for anyone; a former token of this cluster only
 * for a node the cluster already has (`known`), reconnecting. `former` is by hash.
 */
export const admitNode = (
  tokens: KeptJoinTokens | undefined,
  presented: string,
  options: { readonly known: boolean; readonly former: ReadonlyMap<string, NodeRole> },
): TokenCheck => {
  const check = checkJoinToken(tokens, presented);
  if (check.ok || !options.known) return check;
  const role = options.former.get(joinTokenHash(presented.trim()));
  return role === undefined ? check : { ok: true, role };
};
