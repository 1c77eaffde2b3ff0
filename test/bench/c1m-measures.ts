/**
 * What the C1M benchmark computes from its samples, kept pure so that a unit spec holds
 * it: rates per time bin, quantiles of latencies, and the few Prometheus values it reads
 * from each process's /metrics (the longest tick from the tick histogram's buckets, the
 * event loop's longest delay).
 */

/** Events per second in bins of `binMs` from `start` to `end` (ms since the epoch); times outside are left out. */
export const perSecond = (times: Iterable<number>, start: number, end: number, binMs: number): number[] => {
  const bins = Math.max(1, Math.ceil((end - start) / binMs));
  const counts = new Array<number>(bins).fill(0);
  for (const t of times) {
    if (t < start || t > end) continue;
    counts[Math.min(bins - 1, Math.floor((t - start) / binMs))]! += 1;
  }
  return counts.map((c) => c / (binMs / 1_000));
};

/** The nearest-rank quantile q (0 < q ≤ 1) of `values`; NaN when there are none. */
export const quantile = (values: readonly number[], q: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
};

export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition (comments and blank lines skipped). */
export const parseProm = (text: string): PromSample[] => {
  const samples: PromSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
};

/** Where a histogram's largest observation lies: above `above` seconds and at most `atMost` (Infinity past the last bucket). */
export interface Bounds {
  readonly above: number;
  readonly atMost: number;
  readonly count: number;
}

/**
 * The bucket of the largest observation of histogram `name` for each value of label
 * `by` (e.g. the longest tick of each component): the first bucket whose cumulative count
 * holds every observation. Histograms with no observation are left out.
 */
export const largestBucket = (samples: readonly PromSample[], name: string, by: string): Map<string, Bounds> => {
  const buckets = new Map<string, { le: number; count: number }[]>();
  for (const s of samples) {
    if (s.name !== `${name}_bucket`) continue;
    const key = s.labels[by] ?? '';
    const le = s.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(s.labels.le);
    buckets.set(key, [...(buckets.get(key) ?? []), { le, count: s.value }]);
  }
  const out = new Map<string, Bounds>();
  for (const [key, list] of buckets) {
    list.sort((a, b) => a.le - b.le);
    const count = list[list.length - 1]?.count ?? 0;
    if (count === 0) continue;
    const at = list.findIndex((b) => b.count >= count);
    out.set(key, { above: at > 0 ? list[at - 1]!.le : 0, atMost: list[at]!.le, count });
  }
  return out;
};

/** The first sample named `name` (with every label in `labels`), if any. */
export const sampleValue = (samples: readonly PromSample[], name: string, labels: Readonly<Record<string, string>> = {}): number | undefined =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

/** The wider of two bounds on a largest value: the later scrape of a cumulative histogram holds the earlier. */
export const widerBounds = (a: Bounds | undefined, b: Bounds): Bounds => (a && a.atMost > b.atMost ? a : b);

/** `now` less the same samples in `base` (an earlier scrape of the same process): what counters and histograms gained between them. */
export const since = (now: readonly PromSample[], base: readonly PromSample[]): PromSample[] => {
  const key = (s: PromSample): string => `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}`;
  const before = new Map(base.map((s) => [key(s), s.value]));
  return now.map((s) => ({ ...s, value: s.value - (before.get(key(s)) ?? 0) }));
};

/** A process's garbage collections between two scrapes: the longest one's bucket, how many took over 100 ms, their seconds in all. */
export interface GcPauses {
  readonly longest: Bounds;
  readonly over100ms: number;
  readonly seconds: number;
}

/** GcPauses from what a scrape gained (`since`): prom-client's nodejs_gc_duration_seconds, every kind together; undefined when there were none. */
export const gcPauses = (gained: readonly PromSample[]): GcPauses | undefined => {
  let longest: Bounds | undefined;
  for (const bounds of largestBucket(gained, 'nodejs_gc_duration_seconds', 'kind').values()) longest = widerBounds(longest, bounds);
  if (!longest) return undefined;
  let over100ms = 0;
  let seconds = 0;
  for (const s of gained) {
    if (s.name === 'nodejs_gc_duration_seconds_sum') seconds += s.value;
    if (s.name !== 'nodejs_gc_duration_seconds_bucket') continue;
    if (s.labels.le === '+Inf') over100ms += s.value;
    else if (Number(s.labels.le) === 0.1) over100ms -= s.value;
  }
  return { longest, over100ms, seconds };
};

/** The wider of each of two GcPauses' figures (one process over its scrapes: histograms are cumulative). */
export const widerGc = (a: GcPauses | undefined, b: GcPauses): GcPauses =>
  a ? { longest: widerBounds(a.longest, b.longest), over100ms: Math.max(a.over100ms, b.over100ms), seconds: Math.max(a.seconds, b.seconds) } : b;
