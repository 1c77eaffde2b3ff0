/**
 * How the dispatcher refuses a call: a gRPC status, its reason, and, from a standby that
 * knows where the active instance is, the `shoal-dispatcher` trailer. Agents' calls and
 * the control plane's Logs calls are refused alike.
 */
import type { Metadata, status } from '@grpc/grpc-js';

export interface Refusal {
  readonly code: status;
  readonly details: string;
  readonly metadata?: Metadata;
}

export const refusal = (code: status, details: string, metadata?: Metadata): Refusal => ({ code, details, ...(metadata ? { metadata } : {}) });

/** A call for a session that is not the node's current one. */
export const SESSION_NOT_FOUND = 'session not found: it expired or was replaced; open a new session';

/**
 * What a caller sent, as a refusal may quote it: at most 64 characters. A refusal travels in
 * the call's trailers, which HTTP/2 bounds: quoting a long value whole would leave the call
 * unanswered.
 */
export const quoted = (value: string): string => (value.length <= 64 ? value : `${value.slice(0, 64)}… (${value.length} characters)`);
