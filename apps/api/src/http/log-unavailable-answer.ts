/**
 * The answer while the log is unavailable: 503 with Retry-After, saying whether the request
 * was applied — never the adapter's own message, which names the broker's address or the
 * log's directory. An append that was never sent was not applied; one that may have reached
 * the broker (a request sent, then timed out or cut off) may have been, and the client
 * should look before it sends the request again.
 */
import type { WrittenWhenUnavailable } from '@shoal/eventlog';

/** Seconds a client waits before it tries again. */
export const RETRY_AFTER_SECONDS = 5;

export const logUnavailableMessage = (written: WrittenWhenUnavailable): string =>
  written === 'no'
    ? 'the event log is unavailable: the request was not applied; try again later'
    : 'the event log is unavailable: the request may or may not have been applied; check before trying again';
