// Inline SVG charts for report.html: a small line chart per series and a stacked-area chart of the
// total. Hand-written SVG, no library, no network: the report must open from a dump share offline.
// Every series line is ONE <path> (class `series-line`), even across gaps: a missing sample starts a
// new subpath (`M`) instead of drawing a line through time in which the heap did not exist.
import { escapeHtml } from '../html-escape.js';

export interface ChartPoint {
  /** Milliseconds since the run started. */
  x: number;
  /** KB; null = the series was absent in this sample (a gap). */
  y: number | null;
}

export interface ChartBox {
  width: number;
  height: number;
}

const PAD = { left: 56, right: 20, top: 10, bottom: 24 };
/** Above this many points a line is reduced to min/max per pixel column (shape is kept). */
const MAX_POINTS = 600;

/** No red: red marks suspects. */
export const PALETTE = [
  '#1f77b4',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#bcbd22',
  '#7f7f7f',
];

function fmtAxisKb(kb: number): string {
  if (Math.abs(kb) >= 1024 * 1024) return `${(kb / 1048576).toFixed(1)}G`;
  if (Math.abs(kb) >= 1024) return `${(kb / 1024).toFixed(1)}M`;
  return `${Math.round(kb)}K`;
}

function fmtAxisMs(ms: number): string {
  if (ms >= 3_600_000) return `${(ms / 3_600_000).toFixed(1)}h`;
  if (ms >= 60_000) return `${(ms / 60_000).toFixed(1)}m`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;
}

/** Keeps the first, last, min and max of each bucket so spikes survive the reduction. */
export function reducePoints(points: readonly ChartPoint[], max = MAX_POINTS): ChartPoint[] {
  if (points.length <= max) return [...points];
  const buckets = Math.max(1, Math.floor(max / 4));
  const size = points.length / buckets;
  const out: ChartPoint[] = [];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor(b * size);
    const to = Math.min(points.length, Math.floor((b + 1) * size));
    let min: ChartPoint | undefined;
    let maxP: ChartPoint | undefined;
    let gap: ChartPoint | undefined;
    for (let i = from; i < to; i++) {
      const p = points[i];
      if (p === undefined) continue;
      if (p.y === null) {
        gap ??= p;
        continue;
      }
      if (min === undefined || (min.y ?? 0) > p.y) min = p;
      if (maxP === undefined || (maxP.y ?? 0) < p.y) maxP = p;
    }
    const first = points[from];
    const last = points[to - 1];
    const picked = [first, min, maxP, gap, last].filter((p): p is ChartPoint => p !== undefined);
    const unique = [...new Set(picked)].sort((a, b2) => a.x - b2.x);
    for (const value of unique) out.push(value);
  }
  return out;
}

interface Scale {
  x(v: number): number;
  y(v: number): number;
}

function scale(box: ChartBox, xMax: number, yMin: number, yMax: number): Scale {
  const w = box.width - PAD.left - PAD.right;
  const h = box.height - PAD.top - PAD.bottom;
  const xr = xMax > 0 ? xMax : 1;
  const yr = yMax > yMin ? yMax - yMin : 1;
  return {
    x: (v) => PAD.left + (v / xr) * w,
    y: (v) => PAD.top + h - ((v - yMin) / yr) * h,
  };
}

function axes(box: ChartBox, s: Scale, xMax: number, yMin: number, yMax: number): string {
  const x0 = PAD.left;
  const x1 = box.width - PAD.right;
  const y0 = box.height - PAD.bottom;
  const parts = [
    `<line class="axis" x1="${x0}" y1="${PAD.top}" x2="${x0}" y2="${y0}"/>`,
    `<line class="axis" x1="${x0}" y1="${y0}" x2="${x1}" y2="${y0}"/>`,
  ];
  for (const v of [yMin, (yMin + yMax) / 2, yMax]) {
    const y = s.y(v).toFixed(1);
    parts.push(
      `<line class="grid" x1="${x0}" y1="${y}" x2="${x1}" y2="${y}"/>`,
      `<text class="tick" x="${x0 - 4}" y="${y}" text-anchor="end" dominant-baseline="middle">${fmtAxisKb(v)}</text>`,
    );
  }
  for (const v of [0, xMax / 2, xMax]) {
    parts.push(
      `<text class="tick" x="${s.x(v).toFixed(1)}" y="${y0 + 14}" text-anchor="middle">${fmtAxisMs(v)}</text>`,
    );
  }
  return parts.join('');
}

/** d attribute of one path; a null y ends the current subpath. */
export function linePath(points: readonly ChartPoint[], s: Scale): string {
  let d = '';
  let open = false;
  for (const p of points) {
    if (p.y === null) {
      open = false;
      continue;
    }
    d += `${open ? 'L' : 'M'}${s.x(p.x).toFixed(1)} ${s.y(p.y).toFixed(1)}`;
    open = true;
  }
  return d;
}

/** A chart with exactly one series line. */
export function seriesChart(
  id: string,
  points: readonly ChartPoint[],
  xMax: number,
  color: string,
  box: ChartBox = { width: 360, height: 150 },
): string {
  const reduced = reducePoints(points);
  let yMin = Number.POSITIVE_INFINITY;
  let yMax = Number.NEGATIVE_INFINITY;
  for (const p of reduced) {
    if (p.y === null) continue;
    if (p.y < yMin) yMin = p.y;
    if (p.y > yMax) yMax = p.y;
  }
  if (!Number.isFinite(yMin)) {
    yMin = 0;
    yMax = 1;
  }
  // Start the axis at zero unless the series lives far from it, so small growth stays visible;
  // a flat series is drawn against zero so it reads as flat, not as noise.
  if (yMax === yMin) {
    yMax = yMin > 0 ? yMin * 1.25 : 1;
    yMin = 0;
  } else if (yMin > 0 && yMin < (yMax - yMin) * 2) yMin = 0;
  const s = scale(box, xMax, yMin, yMax);
  return (
    `<svg class="chart" viewBox="0 0 ${box.width} ${box.height}" width="${box.width}" height="${box.height}" role="img" aria-label="committed KB of ${escapeHtml(id)} over time">` +
    axes(box, s, xMax, yMin, yMax) +
    `<path class="series-line" data-series="${escapeHtml(id)}" fill="none" stroke="${color}" stroke-width="1.6" d="${linePath(reduced, s)}"/>` +
    `</svg>`
  );
}

export interface StackLayer {
  label: string;
  color: string;
  /** KB per sample, aligned with `xs` (0 when absent). */
  values: readonly number[];
}

/** Stacked areas (polygons, not lines) of the layers over time: the total commit and its parts. */
export function stackedChart(
  xs: readonly number[],
  layers: readonly StackLayer[],
  box: ChartBox = { width: 760, height: 260 },
): string {
  const n = xs.length;
  const step = Math.max(1, Math.ceil(n / MAX_POINTS));
  const picks: number[] = [];
  for (let i = 0; i < n; i += step) picks.push(i);
  if (n > 0 && picks[picks.length - 1] !== n - 1) picks.push(n - 1);
  const base = new Float64Array(picks.length);
  let yMax = 0;
  const tops: Float64Array[] = [];
  for (const layer of layers) {
    const top = new Float64Array(picks.length);
    picks.forEach((idx, k) => {
      top[k] = (base[k] ?? 0) + (layer.values[idx] ?? 0);
    });
    tops.push(top);
    base.set(top);
  }
  for (const v of base) if (v > yMax) yMax = v;
  const xMax = xs[n - 1] ?? 0;
  const s = scale(box, xMax, 0, yMax > 0 ? yMax : 1);
  const polys: string[] = [];
  let lower: Float64Array = new Float64Array(picks.length);
  layers.forEach((layer, li) => {
    const upper = tops[li] ?? lower;
    const pts: string[] = [];
    picks.forEach((idx, k) =>
      pts.push(`${s.x(xs[idx] ?? 0).toFixed(1)},${s.y(upper[k] ?? 0).toFixed(1)}`),
    );
    for (let k = picks.length - 1; k >= 0; k--) {
      pts.push(`${s.x(xs[picks[k] ?? 0] ?? 0).toFixed(1)},${s.y(lower[k] ?? 0).toFixed(1)}`);
    }
    polys.push(
      `<polygon class="stack-area" data-layer="${escapeHtml(layer.label)}" fill="${layer.color}" fill-opacity="0.75" stroke="none" points="${pts.join(' ')}"><title>${escapeHtml(layer.label)}</title></polygon>`,
    );
    lower = upper;
  });
  return (
    `<svg class="chart stacked" viewBox="0 0 ${box.width} ${box.height}" width="${box.width}" height="${box.height}" role="img" aria-label="total committed KB, stacked by heap">` +
    axes(box, s, xMax, 0, yMax > 0 ? yMax : 1) +
    polys.join('') +
    `</svg>`
  );
}
