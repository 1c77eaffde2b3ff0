/** Durations as people write them in task env and flags: "2s", "500ms", "1.5m", "1h". */

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds for a duration like `2s` or `500ms`; a clear error for anything else. */
export const parseDuration = (text: string, what = 'duration'): number => {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(text);
  if (!match) throw new Error(`${what}: expected a duration like 2s, 500ms, 1m or 1h, got "${text}"`);
  return Math.round(Number(match[1]) * (UNITS[match[2]] ?? 1));
};
