/**
 * A line chart as a standalone SVG document, for benchmarks that draw their own plots
 * into docs/ (no plotting library: axes with round ticks, one polyline per series, a legend).
 */

export interface Series {
  readonly name: string;
  readonly color: string;
  /** [x, y] points in increasing x. */
  readonly points: readonly (readonly [number, number])[];
}

export interface Chart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  /** Vertical marks at an x, labelled (e.g. "all created"). */
  readonly marks?: readonly { readonly x: number; readonly label: string }[];
  readonly width?: number;
  readonly height?: number;
}

/** A round step (1, 2 or 5 × 10^k) that cuts [0, max] into about `count` intervals. */
export const niceStep = (max: number, count = 5): number => {
  if (!(max > 0) || !Number.isFinite(max)) return 1;
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
};

/** The ticks 0, step, 2·step, … up to the first at or past max. */
export const ticks = (max: number, count = 5): number[] => {
  const step = niceStep(max, count);
  const out = [0];
  while (out[out.length - 1]! < max) out.push(Number((out.length * step).toPrecision(12)));
  return out;
};

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const label = (value: number): string => (Math.abs(value) >= 1_000 ? value.toLocaleString('en-US') : String(Number(value.toPrecision(6))));

export const lineChart = (chart: Chart): string => {
  const width = chart.width ?? 800;
  const height = chart.height ?? 420;
  const left = 80;
  const right = 20;
  const top = 40;
  const bottom = 60;
  const points = chart.series.flatMap((s) => s.points);
  const xTicks = ticks(Math.max(1, ...points.map(([x]) => x), ...(chart.marks ?? []).map((m) => m.x)));
  const yTicks = ticks(Math.max(1, ...points.map(([, y]) => y)));
  const xMax = xTicks[xTicks.length - 1]!;
  const yMax = yTicks[yTicks.length - 1]!;
  const px = (x: number): number => left + (x / xMax) * (width - left - right);
  const py = (y: number): number => height - bottom - (y / yMax) * (height - top - bottom);
  const r = (n: number): string => n.toFixed(1);
  const lines = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">${escape(chart.title)}</text>`,
    ...yTicks.map((y) => `<line x1="${left}" x2="${width - right}" y1="${r(py(y))}" y2="${r(py(y))}" stroke="#ddd"/><text x="${left - 6}" y="${r(py(y) + 4)}" text-anchor="end">${label(y)}</text>`),
    ...xTicks.map((x) => `<line x1="${r(px(x))}" x2="${r(px(x))}" y1="${height - bottom}" y2="${height - bottom + 5}" stroke="#333"/><text x="${r(px(x))}" y="${height - bottom + 18}" text-anchor="middle">${label(x)}</text>`),
    `<line x1="${left}" x2="${width - right}" y1="${height - bottom}" y2="${height - bottom}" stroke="#333"/>`,
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${height - bottom}" stroke="#333"/>`,
    `<text x="${(left + width - right) / 2}" y="${height - 15}" text-anchor="middle">${escape(chart.xLabel)}</text>`,
    `<text transform="translate(18 ${(top + height - bottom) / 2}) rotate(-90)" text-anchor="middle">${escape(chart.yLabel)}</text>`,
    ...(chart.marks ?? []).map(
      (m, i) => `<line x1="${r(px(m.x))}" x2="${r(px(m.x))}" y1="${top}" y2="${height - bottom}" stroke="#999" stroke-dasharray="4 3"/><text x="${r(px(m.x) + 3)}" y="${height - bottom - 8 - i * 14}" fill="#666">${escape(m.label)}</text>`,
    ),
    ...chart.series.map((s) => `<polyline fill="none" stroke="${s.color}" stroke-width="1.5" points="${s.points.map(([x, y]) => `${r(px(x))},${r(py(y))}`).join(' ')}"/>`),
    ...chart.series.map((s, i) => `<rect x="${width - right - 220}" y="${top + 6 + i * 18}" width="12" height="3" fill="${s.color}"/><text x="${width - right - 202}" y="${top + 11 + i * 18}">${escape(s.name)}</text>`),
    '</svg>',
  ];
  return `${lines.join('\n')}\n`;
};
