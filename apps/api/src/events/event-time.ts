/**
 * `since` and `until` of Docker's /events: Unix seconds, with up to nine digits of
 * fraction as the docker CLI sends them ("1732322222.123456789"), or an RFC 3339 time.
 * Kept in nanoseconds, as Docker compares them.
 */
export type ParsedTime = { readonly ok: true; readonly ns: bigint } | { readonly ok: false; readonly message: string };

const UNIX = /^(-?\d+)(?:\.(\d{1,9}))?$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?$/;

export const parseEventTime = (field: string, raw: string): ParsedTime => {
  const unix = UNIX.exec(raw.trim());
  if (unix) {
    const fraction = (unix[2] ?? '').padEnd(9, '0');
    return { ok: true, ns: BigInt(unix[1]!) * 1_000_000_000n + BigInt(fraction) * (unix[1]!.startsWith('-') ? -1n : 1n) };
  }
  if (RFC3339.test(raw.trim())) {
    const ms = Date.parse(raw.trim());
    if (Number.isFinite(ms)) return { ok: true, ns: BigInt(ms) * 1_000_000n };
  }
  return { ok: false, message: `${field}: "${raw}" is not a time: expected Unix seconds (e.g. 1732322222.5) or an RFC 3339 time` };
};
