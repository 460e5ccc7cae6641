// The report sections beyond the main series: the per-type table (first, last, growth, slope, R²,
// objects, a sparkline in HTML), what holds the growing types (retention chains, "SessionState ←
// Dictionary<…>+Entry[] ← Dictionary<…> ← static …"), memory by category, and the inputs of a
// `--from-dumps` run. Markdown and HTML from the same report; pure.
import { escapeHtml as esc } from '../html-escape.js';
import { formatKb, formatPercent, formatRate } from './format.js';
import { chainLine } from './retention-chains.js';
import { retentionSourceText, rootCountText } from './tiers-view.js';
import { PALETTE, stackedChart } from './svg-chart.js';
import type {
  HeapTrendReport,
  HeapTrendSample,
  HeapTrendSecondary,
  HeapTrendSeriesKind,
} from './types.js';

/** How many rows the per-type and per-category tables show. */
const TABLE_ROWS = 25;

/** What one series is, in the tables' words. */
export function unitOf(kind: HeapTrendSeriesKind): string {
  switch (kind) {
    case 'heap':
      return 'heap';
    case 'committed-memory':
      return 'region';
    case 'clr-generation':
      return 'generation';
    case 'clr-type':
      return 'type';
    case 'category':
      return 'category';
  }
}

function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function secondaryMarkdown(title: string, block: HeapTrendSecondary): string[] {
  const types = block.kind === 'clr-type';
  const suspects = block.series.filter((s) => s.suspect).length;
  const lines = [
    '',
    `## ${title} (${suspects} suspect${suspects === 1 ? '' : 's'} of ${block.seriesCount})`,
    '',
    block.rule,
    '',
    `| # | ${unitOf(block.kind)} | suspect | first | last | growth | slope | R² | grew in |${types ? ' objects |' : ''}`,
    `|---|---|---|---|---|---|---|---|---|${types ? '---|' : ''}`,
  ];
  for (const s of block.series.slice(0, TABLE_ROWS)) {
    lines.push(
      `| ${s.rank} | \`${cell(s.id)}\` | ${s.suspect ? '**yes**' : 'no'} | ${formatKb(s.firstKb)} | ${formatKb(s.lastKb)} | ${formatKb(s.growthKb)} | ${formatRate(s.slopeKbPerMin)} | ${s.r2} | ${formatPercent(s.growthShare)} |` +
        (types ? ` ${s.countFirst ?? '?'} → ${s.countLast ?? '?'} |` : ''),
    );
  }
  return lines;
}

/** The address space's totals at the last sample that had them, in words (null: none). */
export function totalsLine(report: HeapTrendReport): string | null {
  const totals = report.memoryTotals;
  if (totals === undefined) return null;
  const parts = [
    totals.committedKb === undefined ? null : `committed ${formatKb(totals.committedKb)}`,
    totals.reservedKb === undefined ? null : `reserved ${formatKb(totals.reservedKb)}`,
    totals.freeKb === undefined ? null : `free ${formatKb(totals.freeKb)}`,
  ].filter((p) => p !== null);
  return parts.length === 0 ? null : `Address space at the last sample: ${parts.join(', ')}.`;
}

export function managedMarkdown(report: HeapTrendReport): string[] {
  const lines: string[] = [];
  if (report.categories !== undefined) {
    for (const line of secondaryMarkdown('Memory by category', report.categories)) lines.push(line);
  }
  const totals = totalsLine(report);
  if (totals !== null) lines.push('', totals);
  if (report.clrGenerations !== undefined) {
    for (const line of secondaryMarkdown('.NET GC generations', report.clrGenerations)) {
      lines.push(line);
    }
  }
  if (report.clrTypes !== undefined) {
    for (const line of secondaryMarkdown('.NET types', report.clrTypes)) lines.push(line);
  }
  if (report.retention !== undefined) {
    lines.push('', '## What holds the growing types', '');
    if (report.retention.length === 0) lines.push('No type was flagged: no chains were traced.');
    for (const entry of report.retention) {
      lines.push(
        `### ${entry.type}`,
        '',
        retentionSourceText(entry) + (entry.skipped === undefined ? '' : ` ${entry.skipped}.`),
        '',
      );
      for (const root of entry.roots) lines.push(`- ${rootCountText(root)} ${chainLine(root)}`);
      lines.push('');
    }
  }
  if (report.managedNote !== undefined) lines.push('', `> ${report.managedNote}`);
  if (report.inputs !== undefined) {
    lines.push('', '## Dumps read', '');
    for (const input of report.inputs) {
      lines.push(
        `- ${input.time} \`${input.file}\`${input.used ? '' : ` — skipped: ${input.error ?? 'unreadable'}`}`,
      );
    }
  }
  return lines;
}

/** A tiny inline SVG line of one series over the samples (gaps where the series is absent). */
export function sparkline(values: readonly (number | null)[], width = 90, height = 18): string {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return '';
  const min = present.reduce((a, b) => Math.min(a, b));
  const max = present.reduce((a, b) => Math.max(a, b));
  const span = max - min || 1;
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const points = values
    .map((v, i) =>
      v === null
        ? null
        : `${(i * step).toFixed(1)},${(height - 1 - ((v - min) / span) * (height - 2)).toFixed(1)}`,
    )
    .filter((p) => p !== null)
    .join(' ');
  return `<svg class="spark" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><polyline fill="none" stroke="#1f77b4" stroke-width="1.2" points="${points}"/></svg>`;
}

function valuesOf(
  samples: readonly HeapTrendSample[],
  pick: (s: HeapTrendSample) => HeapTrendSample['heaps'] | undefined,
  ids: ReadonlySet<string>,
): Map<string, (number | null)[]> {
  const map = new Map<string, (number | null)[]>();
  for (const id of ids) map.set(id, []);
  for (const sample of samples) {
    const rows = pick(sample);
    if (rows === undefined) continue;
    const seen = new Map<string, number>();
    for (const row of rows) if (ids.has(row.id)) seen.set(row.id, row.committedKb);
    for (const [id, list] of map) list.push(seen.get(id) ?? null);
  }
  return map;
}

function secondaryHtml(
  title: string,
  block: HeapTrendSecondary,
  samples: readonly HeapTrendSample[],
  pick: (s: HeapTrendSample) => HeapTrendSample['heaps'] | undefined,
): string {
  const types = block.kind === 'clr-type';
  const shown = block.series.slice(0, TABLE_ROWS);
  const values = valuesOf(samples, pick, new Set(shown.map((s) => s.id)));
  const rows = shown.map(
    (s) =>
      // A type name can be 150+ characters of generics (`Dictionary`2+Entry[[System.Type,
      // mscorlib],[…]][]`): it wraps inside its cell (td.name), the whole name in its title.
      `<tr class="${s.suspect ? 'suspect' : ''}"><td>${s.rank}</td><td class="id name" title="${esc(s.id)}">${esc(s.id)}</td>` +
      `<td class="${s.suspect ? 'yes' : ''}">${s.suspect ? 'yes' : 'no'}</td>` +
      `<td>${esc(formatKb(s.firstKb))}</td><td>${esc(formatKb(s.lastKb))}</td><td>${esc(formatKb(s.growthKb))}</td>` +
      `<td>${esc(formatRate(s.slopeKbPerMin))}</td><td>${s.r2}</td><td>${esc(formatPercent(s.growthShare))}</td>` +
      (types ? `<td>${s.countFirst ?? '?'} → ${s.countLast ?? '?'}</td>` : '') +
      `<td>${sparkline(values.get(s.id) ?? [])}</td></tr>`,
  );
  const suspects = block.series.filter((s) => s.suspect).length;
  return (
    `<h2>${esc(title)} (${suspects} suspect${suspects === 1 ? '' : 's'} of ${block.seriesCount})</h2>` +
    `<p class="rule">${esc(block.rule)}</p>` +
    `<table id="${types ? 'clr-types' : block.kind}"><thead><tr><th>#</th><th class="id">${unitOf(block.kind)}</th><th>suspect</th><th>first</th><th>last</th><th>growth</th>` +
    `<th>slope</th><th>R²</th><th>grew in</th>${types ? '<th>objects</th>' : ''}<th>trend</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

/**
 * Memory by category stacked over time (image, mapped file, shareable, heap, managed heap, stack,
 * private data, other: every category the samples have, in their order), when the categories
 * ride beside another main series.
 */
function categoryStack(samples: readonly HeapTrendSample[]): string {
  const ids: string[] = [];
  for (const sample of samples) {
    for (const row of sample.categories ?? []) if (!ids.includes(row.id)) ids.push(row.id);
  }
  const kept = samples.filter((s) => s.categories !== undefined);
  if (ids.length === 0 || kept.length === 0) return '';
  const layers = ids.map((id, i) => ({
    label: id,
    color: PALETTE[i % PALETTE.length] ?? '#888',
    values: kept.map((s) => s.categories?.find((r) => r.id === id)?.committedKb ?? 0),
  }));
  const legend = layers
    .map((l) => `<span><i style="background:${l.color}"></i>${esc(l.label)}</span>`)
    .join('');
  return `<div id="category-stack">${stackedChart(
    kept.map((s) => s.elapsedMs),
    layers,
  )}<div class="legend">${legend}</div></div>`;
}

export function managedHtml(report: HeapTrendReport, samples: readonly HeapTrendSample[]): string {
  const parts: string[] = [];
  if (report.categories !== undefined) {
    parts.push(
      secondaryHtml('Memory by category', report.categories, samples, (s) => s.categories),
      categoryStack(samples),
    );
  }
  const totals = totalsLine(report);
  if (totals !== null) parts.push(`<p class="totals">${esc(totals)}</p>`);
  if (report.clrGenerations !== undefined) {
    parts.push(
      secondaryHtml('.NET GC generations', report.clrGenerations, samples, (s) => s.clrGenerations),
    );
  }
  if (report.clrTypes !== undefined) {
    parts.push(secondaryHtml('.NET types', report.clrTypes, samples, (s) => s.clrTypes));
  }
  if (report.retention !== undefined) {
    parts.push('<h2>What holds the growing types</h2>');
    if (report.retention.length === 0)
      parts.push('<p>No type was flagged: no chains were traced.</p>');
    for (const entry of report.retention) {
      const roots = entry.roots
        .map((r) => `<li><b>${esc(rootCountText(r))}</b> <code>${esc(chainLine(r))}</code></li>`)
        .join('');
      parts.push(
        `<h3 class="retention">${esc(entry.type)}</h3><p>${esc(retentionSourceText(entry))}${entry.skipped === undefined ? '' : ` ${esc(entry.skipped)}`}</p><ul class="retention">${roots}</ul>`,
      );
    }
  }
  if (report.managedNote !== undefined)
    parts.push(`<p class="note">${esc(report.managedNote)}</p>`);
  if (report.inputs !== undefined) {
    const rows = report.inputs
      .map(
        (i) =>
          `<tr><td>${esc(i.time)}</td><td class="id">${esc(i.file)}</td><td>${i.used ? 'yes' : 'no'}</td><td class="text">${esc(i.error ?? '')}</td></tr>`,
      )
      .join('');
    parts.push(
      `<h2>Dumps read</h2><table id="inputs"><thead><tr><th>time</th><th class="id">file</th><th>used</th><th class="id">why not</th></tr></thead><tbody>${rows}</tbody></table>`,
    );
  }
  return parts.join('\n');
}
