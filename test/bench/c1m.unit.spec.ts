import { gcPauses, largestBucket, parseProm, perSecond, quantile, sampleValue, since, widerBounds, widerGc } from './c1m-measures';
import { lineChart, niceStep, ticks } from './plot';

describe('what the C1M benchmark computes from its samples', () => {
  it('counts events per second in bins, leaving out those outside the run', () => {
    const start = 10_000;
    expect(perSecond([10_000, 10_500, 11_000, 12_999, 9_999, 14_001], start, 14_000, 2_000)).toEqual([1.5, 0.5]);
    expect(perSecond([], start, start, 1_000)).toEqual([0]);
  });

  it('takes nearest-rank quantiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(quantile(values, 0.5)).toBe(50);
    expect(quantile(values, 0.99)).toBe(99);
    expect(quantile(values, 1)).toBe(100);
    expect(quantile([7], 0.99)).toBe(7);
    expect(quantile([], 0.5)).toBeNaN();
  });

  const metrics = [
    '# HELP shoal_component_tick_duration_seconds How long…',
    '# TYPE shoal_component_tick_duration_seconds histogram',
    'shoal_component_tick_duration_seconds_bucket{le="0.01",component="scheduler"} 3',
    'shoal_component_tick_duration_seconds_bucket{le="0.05",component="scheduler"} 8',
    'shoal_component_tick_duration_seconds_bucket{le="0.1",component="scheduler"} 9',
    'shoal_component_tick_duration_seconds_bucket{le="+Inf",component="scheduler"} 9',
    'shoal_component_tick_duration_seconds_bucket{le="60",component="reaper"} 1',
    'shoal_component_tick_duration_seconds_bucket{le="+Inf",component="reaper"} 2',
    'shoal_component_tick_duration_seconds_bucket{le="0.01",component="idle"} 0',
    'shoal_component_tick_duration_seconds_bucket{le="+Inf",component="idle"} 0',
    'shoal_component_tick_duration_seconds_count{component="scheduler"} 9',
    'nodejs_eventloop_lag_max_seconds 0.25',
    'odd{path="a \\"quoted\\" b"} 1',
    '',
  ].join('\n');

  it('reads Prometheus text, labels and all', () => {
    const samples = parseProm(metrics);
    expect(sampleValue(samples, 'nodejs_eventloop_lag_max_seconds')).toBe(0.25);
    expect(sampleValue(samples, 'shoal_component_tick_duration_seconds_count', { component: 'scheduler' })).toBe(9);
    expect(sampleValue(samples, 'odd')).toBe(1);
    expect(samples.find((s) => s.name === 'odd')?.labels.path).toBe('a \\"quoted\\" b');
    expect(sampleValue(samples, 'absent')).toBeUndefined();
  });

  it("finds the bucket of a histogram's largest observation for each component, past the last bucket too", () => {
    const bounds = largestBucket(parseProm(metrics), 'shoal_component_tick_duration_seconds', 'component');
    expect(bounds.get('scheduler')).toEqual({ above: 0.05, atMost: 0.1, count: 9 });
    expect(bounds.get('reaper')).toEqual({ above: 60, atMost: Number.POSITIVE_INFINITY, count: 2 });
    expect(bounds.has('idle')).toBe(false);
    const earlier = parseProm(metrics.replace('le="0.1",component="scheduler"} 9', 'le="0.1",component="scheduler"} 8').replace('le="+Inf",component="scheduler"} 9', 'le="+Inf",component="scheduler"} 8'));
    // Between the two scrapes the scheduler ticked once, in (0.05, 0.1]; the reaper not at all.
    const gained = largestBucket(since(parseProm(metrics), earlier), 'shoal_component_tick_duration_seconds', 'component');
    expect(gained.get('scheduler')).toEqual({ above: 0.05, atMost: 0.1, count: 1 });
    expect(gained.has('reaper')).toBe(false);
    expect(widerBounds(undefined, { above: 0, atMost: 0.01, count: 1 }).atMost).toBe(0.01);
    expect(widerBounds({ above: 1, atMost: 2.5, count: 1 }, { above: 0, atMost: 0.01, count: 5 }).atMost).toBe(2.5);
  });

  it('reads the garbage collections a scrape gained, every kind together: the longest, how many over 100 ms, their seconds', () => {
    const gc = (minor: readonly number[], major: readonly number[], sums: readonly [number, number]): string =>
      [
        ...['0.001', '0.01', '0.1', '1', '2', '5', '+Inf'].flatMap((le, i) => [
          `nodejs_gc_duration_seconds_bucket{le="${le}",kind="minor"} ${minor[i]}`,
          `nodejs_gc_duration_seconds_bucket{le="${le}",kind="major"} ${major[i]}`,
        ]),
        `nodejs_gc_duration_seconds_sum{kind="minor"} ${sums[0]}`,
        `nodejs_gc_duration_seconds_sum{kind="major"} ${sums[1]}`,
      ].join('\n');
    const base = parseProm(gc([10, 20, 20, 20, 20, 20, 20], [0, 1, 2, 2, 2, 2, 2], [0.05, 0.06]));
    // Since then: 15 minor ones, one of them in (0.01, 0.1]; 4 major ones, two in (0.1, 1] and one in (1, 2].
    const now = parseProm(gc([20, 34, 35, 35, 35, 35, 35], [0, 1, 3, 5, 6, 6, 6], [0.2, 2.5]));
    const gained = gcPauses(since(now, base));
    expect(gained).toEqual({ longest: { above: 1, atMost: 2, count: 4 }, over100ms: 3, seconds: expect.closeTo(0.15 + 2.44, 9) });
    expect(gcPauses(since(now, now))).toBeUndefined();
    // Over later scrapes of the same process, the wider of each.
    expect(widerGc(gained, { longest: { above: 0.01, atMost: 0.1, count: 1 }, over100ms: 0, seconds: 3 })).toEqual({ longest: gained!.longest, over100ms: 3, seconds: 3 });
  });
});

describe('the SVG line chart', () => {
  it('picks round ticks that cover the data', () => {
    expect(niceStep(1_000)).toBe(200);
    expect(niceStep(7_300)).toBe(2_000);
    expect(niceStep(0)).toBe(1);
    expect(ticks(7_300)).toEqual([0, 2_000, 4_000, 6_000, 8_000]);
    expect(ticks(0.3)).toEqual([0, 0.1, 0.2, 0.3]);
  });

  it('draws one polyline per series inside the plot area, with its legend and marks, escaped', () => {
    const svg = lineChart({
      title: 'rates <&>',
      xLabel: 's',
      yLabel: 'tasks/s',
      series: [
        { name: 'a', color: 'red', points: [[0, 0], [5, 100], [10, 50]] },
        { name: 'b', color: 'blue', points: [[0, 10]] },
      ],
      marks: [{ x: 5, label: 'created' }],
      width: 400,
      height: 200,
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200"')).toBe(true);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('rates &lt;&amp;&gt;');
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg).toContain('>created</text>');
    const coords = [...svg.matchAll(/points="([^"]*)"/g)].flatMap((m) => m[1]!.split(' ').map((p) => p.split(',').map(Number)));
    for (const [x, y] of coords) {
      expect(x).toBeGreaterThanOrEqual(80);
      expect(x).toBeLessThanOrEqual(380);
      expect(y).toBeGreaterThanOrEqual(40);
      expect(y).toBeLessThanOrEqual(140);
    }
  });
});
