/**
 * evolve's verdict on an intent (or the domain's refusal of one before it is written), as
 * the HTTP answer Docker would give: the status is the refusal's code's, the message its
 * reason — except a second swarm init, which gets Docker's own words.
 */
import type { Refused, Verdict, VerdictCode } from '@shoal/domain';

export type VerdictAnswer = { readonly ok: true } | { readonly ok: false; readonly status: number; readonly message: string };

const ALREADY_A_SWARM =
  'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.';

/** The HTTP status of each refusal, as Docker answers it. */
const HTTP_STATUS: Readonly<Record<VerdictCode, number>> = {
  'already-initialized': 503,
  'stale-version': 409,
  'already-exists': 409,
  'name-conflict': 409,
  'not-found': 404,
  'not-initialized': 400,
  'in-use': 400,
  'wrong-state': 400,
  invalid: 400,
  'over-capacity': 400,
  'over-limit': 400,
  'not-permitted': 400,
  'superseded-term': 400,
  duplicate: 400,
  poison: 400,
};

/** Every status a refusal can be answered with. */
export const REFUSAL_STATUSES: readonly number[] = [...new Set(Object.values(HTTP_STATUS))].sort();

/** A refusal as Docker's error. */
export const refusalAnswer = ({ code, reason }: Refused): VerdictAnswer & { readonly ok: false } => {
  const status = HTTP_STATUS[code];
  return { ok: false, status, message: code === 'already-initialized' ? ALREADY_A_SWARM : reason };
};

export const verdictAnswer = (verdict: Verdict | undefined): VerdictAnswer => {
  if (!verdict) return { ok: false, status: 500, message: 'the log did not rule on the intent' };
  if (verdict.status === 'applied') return { ok: true };
  const code = verdict.codes[0] ?? 'invalid';
  return refusalAnswer({ code, reason: verdict.reasons.join('; ') || verdict.status });
};
