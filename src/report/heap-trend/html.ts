// report.html: one self-contained file (inline CSS and SVG, no script, no network) with the
// stacked total, a line chart per heap or region, the ranking table, threshold dumps and, when
// umdh ran, the top growing allocation stacks.
import { tierLines } from './tiers-view.js';
import { dumpPathShown, formatKb, formatMinutes, formatPercent, formatRate } from './format.js';
import { escapeHtml as esc } from '../html-escape.js';
import {
  PALETTE,
  seriesChart,
  stackedChart,
  type ChartPoint,
  type StackLayer,
} from './svg-chart.js';
import { managedHtml, unitOf } from './managed-sections.js';
import type { HeapTrendReport, HeapTrendSample } from './types.js';
import type { UmdhTrend } from './umdh-trend.js';
import { verdictLines, verdictOf } from './verdict.js';
import { cadenceText, sampleRows, suspensionText } from './run-facts.js';

/** Layers in the stacked chart before the rest is summed into "other". */
const STACK_LAYERS = 9;

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#1b1b1b;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#555}.note{background:#fff8e1;border-left:4px solid #f0b400;padding:8px 12px;margin:12px 0}
.status{background:#fdecea;border-left:4px solid #d62728;padding:8px 12px;margin:12px 0}
.verdict{border-left:4px solid #888;padding:4px 12px;margin:12px 0;background:#f5f5f5}.verdict.leak{border-color:#d62728;background:#fdecea}.verdict.no-leak{border-color:#2ca02c;background:#eef8ee}.verdict ul{margin:4px 0}
.rule{background:#eef4fb;border-left:4px solid #1f77b4;padding:8px 12px}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:right;vertical-align:top;white-space:nowrap}
td.text{white-space:normal}
td.name{white-space:normal;overflow-wrap:anywhere;min-width:16em}
th{background:#f5f5f5}td.id,th.id,td.text{text-align:left;font-family:ui-monospace,Consolas,monospace}
tr.suspect td{background:#fdecea}.yes{color:#b00020;font-weight:600}
.grid-charts{display:flex;flex-wrap:wrap;gap:12px}.card{border:1px solid #ddd;border-radius:4px;padding:6px}
.card h3{font-size:13px;margin:0 0 2px;font-family:ui-monospace,Consolas,monospace}.card p{margin:0;color:#555;font-size:12px}
svg .axis{stroke:#888}svg .grid{stroke:#eee}svg .tick{font-size:10px;fill:#666}
.legend span{display:inline-block;margin-right:12px;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
pre{margin:0;font-size:12px;white-space:pre-wrap}
ul.retention code{white-space:normal;font-size:12px}
`;

/** id → committedKb per sample (NaN where absent), built in one pass over the samples. */
function valuesById(samples: readonly HeapTrendSample[]): Map<string, Float64Array> {
  const map = new Map<string, Float64Array>();
  samples.forEach((sample, i) => {
    for (const heap of sample.heaps) {
      let values = map.get(heap.id);
      if (values === undefined) {
        values = new Float64Array(samples.length).fill(Number.NaN);
        map.set(heap.id, values);
      }
      values[i] = (Number.isNaN(values[i] ?? Number.NaN) ? 0 : (values[i] ?? 0)) + heap.committedKb;
    }
  });
  return map;
}

/** The verdict first: the headline, then every flagged series. */
function verdictHtml(report: HeapTrendReport): string {
  const verdict = report.verdict ?? verdictOf(report, report.sampleCount);
  const { headline, items, holders } = verdictLines(verdict, report.retentionGroups);
  const list =
    items.length === 0 ? '' : `<ul>${items.map((item) => `<li>${esc(item)}</li>`).join('')}</ul>`;
  const held = holders.map((h) => `<p class="held">Held: ${esc(h)}</p>`).join('');
  return `<div id="verdict" class="verdict ${verdict.kind}"><p><b>${esc(headline)}</b></p>${list}${held}</div>`;
}

/** Every sample's time, spacing, stop and notes (unused, overran). */
function samplesHtml(samples: readonly HeapTrendSample[]): string {
  if (samples.length === 0) return '';
  const { rows, omitted } = sampleRows(samples);
  const body = rows
    .map((r, i) => {
      const gap =
        omitted > 0 && i === rows.length / 2
          ? `<tr><td>…</td><td class="text" colspan="5">${omitted} more</td></tr>`
          : '';
      return (
        `${gap}<tr class="${r.notes.startsWith('not used') ? 'suspect' : ''}"><td>${r.index}</td><td>${esc(r.time)}</td><td>${esc(r.spacing)}</td>` +
        `<td>${esc(r.stop)}</td><td>${esc(r.took)}</td><td class="text">${esc(r.notes)}</td></tr>`
      );
    })
    .join('');
  return (
    `<h2>Samples</h2><table id="samples"><thead><tr><th>#</th><th>time</th><th>spacing</th>` +
    `<th>target stopped</th><th>took</th><th class="id">notes</th></tr></thead><tbody>${body}</tbody></table>`
  );
}

function header(report: HeapTrendReport): string {
  const target = `${report.target.name === undefined ? '' : `${report.target.name} `}pid ${report.target.pid}`;
  const parts = [
    `<h1>Heap trend: ${esc(target)}</h1>`,
    verdictHtml(report),
    `<p class="meta">${esc(report.startedAt)} → ${esc(report.endedAt)} · ${esc(cadenceText(report))} · engine ${esc(report.engine)} · source <b>${esc(report.source)}</b></p>`,
    `<p class="note">${esc(report.view)}</p>`,
    ...tierLines(report.tiers).map((line) => `<p class="note">${esc(line)}</p>`),
  ];
  if (report.status !== 'completed' || report.message !== undefined) {
    parts.push(
      `<p class="status"><b>${esc(report.status)}</b>${report.message === undefined ? '' : `: ${esc(report.message)}`}</p>`,
    );
  }
  const t = report.total;
  parts.push(
    `<p>Total committed: ${esc(formatKb(t.firstKb))} → ${esc(formatKb(t.lastKb))} (${esc(formatKb(t.growthKb))}, ${esc(formatRate(t.slopeKbPerMin))}, R² ${t.r2}). ` +
      `${esc(suspensionText(report))}</p>`,
  );
  if (report.projection !== null) {
    const p = report.projection;
    parts.push(
      `<p>Projection to ${esc(formatKb(p.limitKb))}: ${
        p.minutesToLimit === null
          ? 'not reached at the current rate (the total is not growing)'
          : `reached in ${esc(formatMinutes(p.minutesToLimit))}${p.reachesAt === null ? '' : ` (about ${esc(p.reachesAt)})`}`
      }.</p>`,
    );
  }
  return parts.join('\n');
}

function stacked(report: HeapTrendReport, samples: readonly HeapTrendSample[]): string {
  if (samples.length === 0) return '<p>No samples were taken.</p>';
  const byId = valuesById(samples);
  const ids = report.ranking.filter((id) => byId.has(id));
  // Biggest heaps get their own layer; the suspicious ones first so they stay visible.
  const chosen = [...ids.slice(0, 3)];
  const bySize = [...ids].sort(
    (a, b) =>
      (report.series.find((s) => s.id === b)?.maxKb ?? 0) -
      (report.series.find((s) => s.id === a)?.maxKb ?? 0),
  );
  for (const id of bySize) {
    if (chosen.length >= STACK_LAYERS) break;
    if (!chosen.includes(id)) chosen.push(id);
  }
  const layers: StackLayer[] = chosen.map((id, i) => ({
    label: id,
    color: PALETTE[i % PALETTE.length] ?? '#888',
    values: Array.from(byId.get(id) ?? [], (v) => (Number.isNaN(v) ? 0 : v)),
  }));
  const rest = ids.filter((id) => !chosen.includes(id));
  if (rest.length > 0) {
    const other = new Array<number>(samples.length).fill(0);
    for (const id of rest) {
      const values = byId.get(id);
      values?.forEach((v, i) => {
        if (!Number.isNaN(v)) other[i] = (other[i] ?? 0) + v;
      });
    }
    layers.push({ label: `other (${rest.length})`, color: '#c7c7c7', values: other });
  }
  const legend = layers
    .map((l) => `<span><i style="background:${l.color}"></i>${esc(l.label)}</span>`)
    .join('');
  return `${stackedChart(
    samples.map((s) => s.elapsedMs),
    layers,
  )}<div class="legend">${legend}</div>`;
}

function ranking(report: HeapTrendReport): string {
  const limit = report.projection !== null;
  const rows = report.series.map(
    (s) =>
      `<tr class="${s.suspect ? 'suspect' : ''}"><td>${s.rank}</td><td class="id">${esc(s.id)}</td>` +
      `<td class="${s.suspect ? 'yes' : ''}">${s.suspect ? 'yes' : 'no'}</td>` +
      `<td>${esc(formatKb(s.firstKb))}</td><td>${esc(formatKb(s.lastKb))}</td><td>${esc(formatKb(s.growthKb))}</td>` +
      `<td>${esc(formatRate(s.slopeKbPerMin))}</td><td>${s.r2}</td><td>${esc(formatPercent(s.growthShare))}</td><td>${s.samples}</td>` +
      (limit
        ? `<td>${s.minutesToLimit == null ? '—' : esc(formatMinutes(s.minutesToLimit))}</td>`
        : '') +
      `<td class="text">${esc(s.reasons.join('; '))}${s.appeared ? ' · appeared mid-run' : ''}${s.disappeared ? ' · gone before the end' : ''}</td></tr>`,
  );
  return (
    `<table id="ranking"><thead><tr><th>#</th><th class="id">id</th><th>suspect</th><th>first</th><th>last</th><th>growth</th>` +
    `<th>slope</th><th>R²</th><th>grew in</th><th>samples</th>${limit ? '<th>to limit</th>' : ''}<th class="id">why</th></tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

function charts(report: HeapTrendReport, samples: readonly HeapTrendSample[]): string {
  const xMax = samples[samples.length - 1]?.elapsedMs ?? 0;
  const byId = valuesById(samples);
  const cards = report.series.map((s, i) => {
    const values = byId.get(s.id);
    const points: ChartPoint[] = samples.map((sample, k) => {
      const v = values?.[k] ?? Number.NaN;
      return { x: sample.elapsedMs, y: Number.isNaN(v) ? null : v };
    });
    const color = s.suspect ? '#d62728' : (PALETTE[i % PALETTE.length] ?? '#1f77b4');
    return (
      `<div class="card" data-series="${esc(s.id)}"><h3>#${s.rank} ${esc(s.id)}${s.suspect ? ' <span class="yes">suspect</span>' : ''}</h3>` +
      `<p>${esc(formatKb(s.firstKb))} → ${esc(formatKb(s.lastKb))}, ${esc(formatRate(s.slopeKbPerMin))}, R² ${s.r2}</p>` +
      `${seriesChart(s.id, points, xMax, color)}</div>`
    );
  });
  return `<div class="grid-charts" id="series-charts">${cards.join('')}</div>`;
}

function dumps(report: HeapTrendReport, reportDir: string | undefined): string {
  if (report.dumps.length === 0) return '<p>No threshold dumps.</p>';
  const rows = report.dumps.map(
    (d) =>
      `<tr><td>${esc(formatKb(d.thresholdKb))}</td><td>${d.sampleIndex}</td><td>${esc(formatKb(d.totalCommittedKb))}</td>` +
      `<td class="text">${esc(dumpPathShown(d.path, reportDir))}</td><td>${d.verified ? 'yes' : 'no'}</td><td>${d.suspendedMs} ms</td>` +
      `<td class="text">${esc(d.error ?? '')}</td></tr>`,
  );
  return (
    `<table id="dumps"><thead><tr><th>threshold</th><th>sample</th><th>total</th><th class="id">file</th><th>verified</th><th>suspended</th><th class="id">error</th></tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

export function renderUmdhTable(trend: UmdhTrend, top = 20): string {
  const rows = trend.stacks
    .slice(0, top)
    .map(
      (s) =>
        `<tr class="${s.suspect ? 'suspect' : ''}"><td>${s.rank}</td><td class="id">${esc(s.backtrace)}</td>` +
        `<td>${s.growthBytes}</td><td>${esc(formatPercent(s.growthShare))}</td><td>${s.slopeBytesPerSnapshot}</td><td>${s.r2}</td>` +
        `<td class="text"><pre>${esc(s.frames.join('\n'))}</pre></td></tr>`,
    );
  return (
    `<p class="rule">${esc(trend.rule)}</p><p>${trend.totalStacks} stacks in ${trend.snapshots.length} ${trend.snapshots[0]?.kind === 'comparison' ? `comparison reports (${trend.snapshots.length + 1} points)` : 'snapshots'}; ${trend.growingStacks} grew; ${trend.suspectStacks} suspect.</p>` +
    `<table id="umdh"><thead><tr><th>#</th><th class="id">backtrace</th><th>growth (bytes)</th><th>grew in</th><th>bytes/snapshot</th><th>R²</th><th class="id">frames</th></tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table>`
  );
}

export function renderHeapTrendHtml(
  report: HeapTrendReport,
  samples: readonly HeapTrendSample[],
  /** The folder the page is written to: dump paths under it are shown relative to it. */
  reportDir?: string,
): string {
  const unit = unitOf(report.source);
  const umdh =
    report.umdh === undefined
      ? ''
      : `<h2>umdh: top growing allocation stacks</h2>${
          report.umdh.trend === undefined
            ? `<p>${esc(report.umdh.error ?? 'no umdh trend')}</p>`
            : renderUmdhTable(report.umdh.trend)
        }`;
  const warnings =
    report.warnings.length === 0
      ? ''
      : `<h2>Warnings</h2><ul>${report.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Heap trend: pid ${report.target.pid}</title><style>${CSS}</style></head>
<body>
${header(report)}
<h2>Rule</h2><p class="rule">${esc(report.rule)}</p>
<h2>Total committed, stacked by ${unit}</h2>
${stacked(report, samples)}
<h2>Ranking</h2>
${ranking(report)}
<h2>Committed KB per ${unit}</h2>
${charts(report, samples)}
${managedHtml(report, samples)}
${samplesHtml(samples)}
<h2>Threshold dumps</h2>
${dumps(report, reportDir)}
${umdh}
${warnings}
</body></html>
`;
}
