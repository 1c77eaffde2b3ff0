/**
 * The progress line: its text (records so far, the rate, the time left), and the reporter
 * that draws it in place on a terminal at most every so often, wipes it at the end, and on a
 * stream that is not a terminal writes nothing at all.
 */
import { count, duration, formatProgress, progressReporter } from './progress';
import type { ProgressStream } from './progress';

const stream = (isTTY: boolean, columns?: number): ProgressStream & { written: string[] } => {
  const written: string[] = [];
  return { isTTY, ...(columns ? { columns } : {}), written, write: (text: string) => written.push(text) };
};

/** A clock the test moves by hand. */
const clock = (start = 1_000_000) => {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};

describe('formatProgress', () => {
  it('says how many records of how many, how fast, and how long is left', () => {
    // 120,000 records in 2⅔ s is 45,000 records/s; 880,000 left take 19.6 s.
    expect(formatProgress(120_000, 1_000_000, (120_000 / 45_000) * 1000)).toBe('replayed 120,000 of 1,000,000 records · 45,000 records/s · ETA 20 s');
  });

  it('leaves out the rate and the ETA until there is a rate to go by', () => {
    expect(formatProgress(0, 1_000_000, 500)).toBe('replayed 0 of 1,000,000 records');
    expect(formatProgress(10, 100, 0)).toBe('replayed 10 of 100 records');
  });

  it('leads with the verb it is given', () => {
    expect(formatProgress(5_000, 10_000, 1_000, 'replay pass 2: read')).toBe('replay pass 2: read 5,000 of 10,000 records · 5,000 records/s · ETA 1 s');
  });

  it('says ETA 0 s at the end', () => {
    expect(formatProgress(100, 100, 1_000)).toBe('replayed 100 of 100 records · 100 records/s · ETA 0 s');
  });
});

describe('count and duration', () => {
  it('groups thousands', () => {
    expect(count(1_234_567)).toBe('1,234,567');
    expect(count(999.6)).toBe('1,000');
  });

  it('rounds up to seconds, then minutes and hours', () => {
    expect(duration(200)).toBe('1 s');
    expect(duration(59_000)).toBe('59 s');
    expect(duration(185_000)).toBe('3 min 05 s');
    expect(duration((2 * 3600 + 7 * 60 + 30) * 1000)).toBe('2 h 07 min');
  });
});

describe('progressReporter', () => {
  it('writes nothing at all when the stream is not a terminal', () => {
    const out = stream(false);
    const time = clock();
    const progress = progressReporter(out, { now: time.now, everyMs: 100 });
    progress.start('replayed');
    for (let done = 0; done <= 10; done++) {
      time.advance(1_000);
      progress.update(done * 1_000, 10_000);
    }
    progress.clear();
    expect(out.written).toEqual([]);
  });

  it('draws nothing for a command done before the first redraw is due', () => {
    const out = stream(true);
    const time = clock();
    const progress = progressReporter(out, { now: time.now, everyMs: 250 });
    progress.update(0, 10);
    time.advance(100);
    progress.update(10, 10);
    progress.clear();
    expect(out.written).toEqual([]);
  });

  it('redraws the line in place on a terminal, at most once per interval, and wipes it at the end', () => {
    const out = stream(true);
    const time = clock();
    const progress = progressReporter(out, { now: time.now, everyMs: 250 });
    progress.start('replayed');
    time.advance(1_000);
    progress.update(10_000, 40_000);
    time.advance(100);
    progress.update(11_000, 40_000); // too soon: skipped
    time.advance(150);
    progress.update(12_500, 40_000);
    progress.clear();
    expect(out.written).toEqual([
      '\rreplayed 10,000 of 40,000 records · 10,000 records/s · ETA 3 s\x1b[K',
      '\rreplayed 12,500 of 40,000 records · 10,000 records/s · ETA 3 s\x1b[K',
      '\r\x1b[K',
    ]);
  });

  it('counts the rate of each pass from its start, under its own verb', () => {
    const out = stream(true);
    const time = clock();
    const progress = progressReporter(out, { now: time.now, everyMs: 250 });
    progress.start('proof pass 1: read');
    time.advance(10_000);
    progress.update(100_000, 100_000);
    progress.start('proof pass 2: read');
    time.advance(500);
    progress.update(20_000, 100_000);
    expect(out.written).toEqual([
      '\rproof pass 1: read 100,000 of 100,000 records · 10,000 records/s · ETA 0 s\x1b[K',
      '\rproof pass 2: read 20,000 of 100,000 records · 40,000 records/s · ETA 2 s\x1b[K',
    ]);
  });

  it('cuts the line to the width of the terminal, so that it never wraps', () => {
    const out = stream(true, 21);
    const time = clock();
    const progress = progressReporter(out, { now: time.now, everyMs: 0 });
    progress.update(1_000, 2_000);
    expect(out.written).toEqual(['\rreplayed 1,000 of 2,\x1b[K']);
  });

  it('clears nothing when it drew nothing', () => {
    const out = stream(true);
    progressReporter(out).clear();
    expect(out.written).toEqual([]);
  });
});
