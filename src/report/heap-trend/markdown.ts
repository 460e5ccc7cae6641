// report.md: the same findings as report.html in plain text, for tickets and terminals.
import { tierLines } from './tiers-view.js';
import { dumpPathShown, formatKb, formatMinutes, formatPercent, formatRate } from './format.js';
import { managedMarkdown, unitOf } from './managed-sections.js';
import type { HeapTrendReport, HeapTrendSample } from './types.js';
import type { UmdhTrend } from './umdh-trend.js';
import { verdictLines, verdictOf } from './verdict.js';
import { cadenceText, sampleRows, suspensionText } from './run-facts.js';

/** Table cells must not break the row: `|` and newlines are escaped. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

export function renderUmdhMarkdown(trend: UmdhTrend, top = 10): string {
  const lines = [
    trend.rule,
    '',
    `${trend.totalStacks} stacks in ${trend.snapshots.length} ${trend.snapshots[0]?.kind === 'comparison' ? `comparison reports (${trend.snapshots.length + 1} points)` : 'snapshots'}; ${trend.growingStacks} grew; ${trend.suspectStacks} suspect.`,
    '',
  ];
  for (const s of trend.stacks.slice(0, top)) {
    lines.push(
      `### ${s.rank}. ${s.backtrace}${s.suspect ? ' (suspect)' : ''}`,
      '',
      `Bytes per snapshot: ${s.bytes.join(' → ')}; growth ${s.growthBytes} bytes, ` +
        `${s.slopeBytesPerSnapshot} bytes/snapshot, grew in ${formatPercent(s.growthShare)} of intervals, R² ${s.r2}` +
        (s.allocsGrowth === null
          ? ''
          : `, allocations ${s.allocsGrowth >= 0 ? '+' : ''}${s.allocsGrowth}`) +
        '.',
      '',
      '```',
    );
    for (const frame of s.frames) lines.push(frame);
    lines.push('```', '');
  }
  return lines.join('\n');
}

/** The verdict first: the headline in bold, then every flagged series. */
function verdictMarkdown(report: HeapTrendReport): string[] {
  const { headline, items, holders } = verdictLines(
    report.verdict ?? verdictOf(report, report.sampleCount),
    report.retentionGroups,
  );
  const lines = [`**${headline}**`, ''];
  for (const item of items) lines.push(`- ${item}`);
  if (items.length > 0) lines.push('');
  for (const holder of holders) lines.push(`Held: ${holder}`, '');
  return lines;
}

/** Every sample's time, spacing, stop and notes (unused, overran). */
function samplesMarkdown(samples: readonly HeapTrendSample[]): string[] {
  if (samples.length === 0) return [];
  const { rows, omitted } = sampleRows(samples);
  const lines = [
    '',
    '## Samples',
    '',
    '| # | time | spacing | target stopped | took | notes |',
    '|---|---|---|---|---|---|',
  ];
  rows.forEach((r, i) => {
    if (omitted > 0 && i === rows.length / 2) lines.push(`| … | ${omitted} more | | | | |`);
    lines.push(
      `| ${r.index} | ${r.time} | ${r.spacing} | ${r.stop} | ${r.took} | ${cell(r.notes)} |`,
    );
  });
  return lines;
}

export function renderHeapTrendMarkdown(
  report: HeapTrendReport,
  samples: readonly HeapTrendSample[] = [],
  /** The folder the file is written to: dump paths under it are shown relative to it. */
  reportDir?: string,
): string {
  const unit = unitOf(report.source);
  const target = `${report.target.name === undefined ? '' : `${report.target.name} `}pid ${report.target.pid}`;
  const t = report.total;
  const lines = [
    `# Heap trend: ${target}`,
    '',
    ...verdictMarkdown(report),
    `${report.startedAt} → ${report.endedAt}; ${cadenceText(report)}; engine ${report.engine}; source \`${report.source}\`.`,
    '',
    `> ${report.view}`,
    ...tierLines(report.tiers).map((line) => `> - ${line}`),
    '',
  ];
  if (report.status !== 'completed' || report.message !== undefined) {
    lines.push(
      `**Status: ${report.status}**${report.message === undefined ? '' : `: ${report.message}`}`,
      '',
    );
  }
  lines.push(
    `Total committed: ${formatKb(t.firstKb)} → ${formatKb(t.lastKb)} (${formatKb(t.growthKb)}, ${formatRate(t.slopeKbPerMin)}, R² ${t.r2}).`,
    suspensionText(report),
  );
  if (report.projection !== null) {
    const p = report.projection;
    lines.push(
      p.minutesToLimit === null
        ? `Projection to ${formatKb(p.limitKb)}: not reached at the current rate (the total is not growing).`
        : `Projection to ${formatKb(p.limitKb)}: reached in ${formatMinutes(p.minutesToLimit)}${p.reachesAt === null ? '' : ` (about ${p.reachesAt})`}.`,
    );
  }
  const suspects = report.series.filter((s) => s.suspect);
  lines.push(
    '',
    '## Rule',
    '',
    report.rule,
    '',
    `## Ranking (${suspects.length} suspect${suspects.length === 1 ? '' : 's'})`,
    '',
    `| # | ${unit} | suspect | first | last | growth | slope | R² | grew in | samples | why |`,
    '|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const s of report.series) {
    const notes = [
      ...s.reasons,
      ...(s.appeared ? ['appeared mid-run'] : []),
      ...(s.disappeared ? ['gone before the end'] : []),
    ];
    lines.push(
      `| ${s.rank} | \`${cell(s.id)}\` | ${s.suspect ? '**yes**' : 'no'} | ${formatKb(s.firstKb)} | ${formatKb(s.lastKb)} | ${formatKb(s.growthKb)} | ${formatRate(s.slopeKbPerMin)} | ${s.r2} | ${formatPercent(s.growthShare)} | ${s.samples} | ${cell(notes.join('; '))} |`,
    );
  }
  for (const line of managedMarkdown(report)) lines.push(line);
  for (const line of samplesMarkdown(samples)) lines.push(line);
  lines.push('', '## Threshold dumps', '');
  if (report.dumps.length === 0) lines.push('None.');
  for (const d of report.dumps) {
    lines.push(
      `- ${formatKb(d.thresholdKb)} crossed at sample ${d.sampleIndex} (${formatKb(d.totalCommittedKb)}): \`${dumpPathShown(d.path, reportDir)}\` ` +
        `${d.verified ? 'verified' : 'NOT verified'}${d.error === undefined ? '' : ` (${d.error})`}; target suspended ${d.suspendedMs} ms.`,
    );
  }
  if (report.umdh !== undefined) {
    lines.push('', '## umdh: top growing allocation stacks', '');
    lines.push(
      report.umdh.trend === undefined
        ? (report.umdh.error ?? 'No umdh trend.')
        : renderUmdhMarkdown(report.umdh.trend),
    );
  }
  if (report.warnings.length > 0) {
    lines.push('', '## Warnings', '');
    for (const w of report.warnings) lines.push(`- ${w}`);
  }
  lines.push('');
  return lines.join('\n');
}
