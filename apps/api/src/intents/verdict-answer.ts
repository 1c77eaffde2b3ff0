/**
 * evolve's verdict on an intent, as the HTTP answer Docker would give: applied → the
 * success status; a refusal → 404 (not found), 409 (out of sequence, name conflict),
 * 503 (already a swarm) or 400 (any other rule), with evolve's reason as the message.
 */
import type { Verdict } from '@shoal/domain';

export type VerdictAnswer = { readonly ok: true } | { readonly ok: false; readonly status: number; readonly message: string };

const ALREADY_A_SWARM =
  'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.';

export const refusalStatus = (reason: string): number => {
  if (/already initialized/.test(reason)) return 503;
  if (/out of sequence|already exists|conflicts with an existing/.test(reason)) return 409;
  if (/not found|does not exist/.test(reason)) return 404;
  return 400;
};

export const verdictAnswer = (verdict: Verdict | undefined): VerdictAnswer => {
  if (!verdict) return { ok: false, status: 500, message: 'the log did not rule on the intent' };
  if (verdict.status === 'applied') return { ok: true };
  const reason = verdict.reasons.join('; ') || verdict.status;
  const status = refusalStatus(reason);
  return { ok: false, status, message: status === 503 ? ALREADY_A_SWARM : reason };
};
