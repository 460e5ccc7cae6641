// The text heap-trend prints for people: one line per progress event, and the summary at the end
// (the view, the total, the ranking, the growing .NET types and what holds them).
import {
  formatCount,
  formatKb,
  formatMs,
  formatPercent,
  formatRate,
} from '../../report/heap-trend/format.js';
import { cadenceText, sampleStopText, suspensionText } from '../../report/heap-trend/run-facts.js';
import { rootCountText, tierLines } from '../../report/heap-trend/tiers-view.js';
import { verdictLines, verdictOf } from '../../report/heap-trend/verdict.js';
import type { HeapTrendReport } from '../../report/heap-trend/types.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import type { HeapTrendProgress } from '../../workflows/heap-trend/run-heap-trend.js';

export function formatProgress(event: HeapTrendProgress, previousTotal: number | null): string {
  switch (event.kind) {
    case 'sample': {
      const s = event.sample;
      const delta =
        previousTotal === null
          ? ''
          : ` (${s.totalCommittedKb >= previousTotal ? '+' : ''}${formatKb(s.totalCommittedKb - previousTotal)})`;
      const suspended =
        s.suspendedHow === 'never' || s.source === 'committed-memory' || s.source === 'category'
          ? ''
          : `, target stopped ${sampleStopText(s)}`;
      const late =
        s.overran === true ? `, took ${formatMs(s.durationMs)} (longer than the interval)` : '';
      const unused = s.unused === undefined ? '' : ` — NOT USED: ${s.unused}`;
      const what =
        s.source === 'heap'
          ? 'heaps'
          : s.source === 'clr-generation'
            ? `GC generations, ${s.clrTypes?.length ?? 0} types`
            : s.source === 'category'
              ? 'categories'
              : 'regions';
      return `sample ${s.index + 1}: ${s.heaps.length} ${what}, total committed ${formatKb(s.totalCommittedKb)}${delta}${suspended}${late}${unused}`;
    }
    case 'sample-failed':
      return `sample ${event.index + 1} failed: ${event.error}`;
    case 'dump':
      return `dump at ${formatKb(event.dump.thresholdKb)}: ${event.dump.path} ${event.dump.verified ? '(verified)' : `(NOT verified: ${event.dump.error ?? 'unknown'})`}`;
    case 'umdh':
      return `umdh snapshot: ${event.file}`;
    case 'end':
      return `${event.status}${event.message === undefined ? '' : `: ${event.message}`}`;
  }
}

export function formatSummary(
  report: HeapTrendReport,
  files: { report: string; html: string },
): string {
  const view: Record<HeapTrendReport['source'], string> = {
    'committed-memory': 'Committed-memory view (winedbg info maps), not per heap.',
    heap:
      report.inputs === undefined
        ? 'Per-heap view (!heap -s -h 0).'
        : 'Per-heap view: each heap walked to its sub-heaps and large blocks in every dump (as !heap -s -h 0 lists them).',
    'clr-generation': 'Managed-heap view (SOS eeheap -gc per generation, dumpheap -stat per type).',
    category: 'Memory by category (from each dump).',
  };
  const { headline, items, holders } = verdictLines(
    report.verdict ?? verdictOf(report, report.sampleCount),
    report.retentionGroups,
  );
  const lines = [
    headline,
    ...items.map((item) => `  ${item}`),
    ...holders.map((holder) => `Held: ${holder}`),
    '',
    report.tiers?.series === undefined ? view[report.source] : 'Managed-heap view in tiers:',
    ...tierLines(report.tiers).map((line) => `  ${line}`),
    `Total committed ${formatKb(report.total.firstKb)} → ${formatKb(report.total.lastKb)} (${formatRate(report.total.slopeKbPerMin)}).`,
    `${cadenceText(report)}.`,
    suspensionText(report),
    `Rule: ${report.rule}`,
    '',
  ];
  const suspects = report.series.filter((s) => s.suspect);
  lines.push(`${unitTitle[report.source]}: ${suspects.length} of ${report.series.length} flagged`);
  for (const s of report.series.slice(0, 5)) {
    lines.push(
      `  #${s.rank} ${s.id}${s.suspect ? '  SUSPECT' : ''}: ${formatKb(s.firstKb)} → ${formatKb(s.lastKb)}, ${formatRate(s.slopeKbPerMin)}, R² ${s.r2}, grew in ${formatPercent(s.growthShare)} of intervals`,
    );
  }
  for (const line of managedSummary(report)) lines.push(line);
  // Samples left out of every series (SOS could not walk a heap dumped mid-GC), in SOS's words.
  for (const w of report.warnings) if (/^sample \d+ not used: /.test(w)) lines.push(w);
  if (report.projection !== null && report.projection.minutesToLimit !== null) {
    lines.push(
      `At this rate the total reaches ${formatKb(report.projection.limitKb)} in ${report.projection.minutesToLimit} min.`,
    );
  }
  lines.push('', `Report: ${files.html}`, `        ${files.report}`);
  return lines.join('\n');
}

const unitTitle: Record<HeapTrendReport['source'], string> = {
  'committed-memory': 'Regions',
  heap: 'Heaps',
  'clr-generation': 'GC generations',
  category: 'Memory categories',
};

/** The per-type ranking and what holds the suspects, for the text summary. */
function managedSummary(report: HeapTrendReport): string[] {
  const lines: string[] = [];
  if (report.clrTypes !== undefined) {
    const suspects = report.clrTypes.series.filter((s) => s.suspect);
    lines.push(
      '',
      suspects.length === 0
        ? `No growing .NET type (${report.clrTypes.seriesCount} types).`
        : `Growing .NET types: ${suspects.length} of ${report.clrTypes.seriesCount}`,
    );
    for (const s of report.clrTypes.series.slice(0, 5)) {
      lines.push(
        `  #${s.rank} ${s.id}${s.suspect ? '  SUSPECT' : ''}: ${formatKb(s.firstKb)} → ${formatKb(s.lastKb)}, ${formatRate(s.slopeKbPerMin)}, ${s.countFirst === undefined ? '?' : formatCount(s.countFirst)} → ${s.countLast === undefined ? '?' : formatCount(s.countLast)} objects`,
      );
    }
  }
  for (const entry of report.retention ?? []) {
    lines.push(`  ${entry.type} is held by:`);
    if (entry.skipped !== undefined) lines.push(`    (${entry.skipped})`);
    for (const root of entry.roots.slice(0, 3)) {
      lines.push(`    ${rootCountText(root)} ${[...root.chain, root.root].join(' ← ')}`);
    }
  }
  if (report.managedNote !== undefined) lines.push(`  ${report.managedNote}`);
  return lines;
}

/**
 * The exit code of a finished run: its status first (failed, interrupted, target gone), then the
 * verdict, so a script reads the same conclusion as the headline (6: leak suspected).
 */
export function exitCodeOfReport(report: HeapTrendReport): ExitCodeValue {
  switch (report.status) {
    case 'interrupted':
      return ExitCode.Interrupted;
    case 'target-exited':
      return ExitCode.Target;
    case 'failed':
      return ExitCode.Failure;
    case 'completed':
      return (report.verdict ?? verdictOf(report, report.sampleCount)).kind === 'leak'
        ? ExitCode.LeakSuspected
        : ExitCode.Ok;
  }
}
