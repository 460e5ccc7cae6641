// Progress and summary text for `analyze`, as pure functions: the CLI decides where and when to
// print them (a redrawn line on a TTY, periodic plain lines otherwise).
import type { AnalyzeSummary } from './analyze-record.js';

export interface ProgressState {
  done: number;
  total: number;
  ok: number;
  failed: number;
  skipped: number;
  elapsedMs: number;
}

/** `[########------------]  41/100  ok 39  failed 2  12.3/s  ETA 0:05` */
export function progressLine(state: ProgressState, width = 20): string {
  const fraction = state.total === 0 ? 1 : Math.min(1, state.done / state.total);
  const filled = Math.round(fraction * width);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
  const seconds = state.elapsedMs / 1000;
  const rate = seconds > 0 ? state.done / seconds : 0;
  const left = state.total - state.done;
  const eta = rate > 0 ? formatDuration((left / rate) * 1000) : '?';
  const parts = [
    bar,
    `${String(state.done).padStart(String(state.total).length)}/${state.total}`,
    `ok ${state.ok}`,
    `failed ${state.failed}`,
  ];
  if (state.skipped > 0) parts.push(`skipped ${state.skipped}`);
  parts.push(`${rate >= 10 ? rate.toFixed(0) : rate.toFixed(1)}/s`, `ETA ${eta}`);
  return parts.join('  ');
}

/** 65000 → `1:05`; 3725000 → `1:02:05`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

/** The human summary printed when a run ends. */
export function summaryText(
  summary: AnalyzeSummary,
  where: { report: string; records: string; summary: string },
  options: { maxBuckets?: number; durationMs?: number } = {},
): string {
  const lines: string[] = [];
  const took =
    options.durationMs === undefined ? '' : ` in ${(options.durationMs / 1000).toFixed(1)} s`;
  lines.push(
    `${summary.dumps} dump${summary.dumps === 1 ? '' : 's'} analysed${took}: ${summary.ok} ok${(summary.truncated ?? 0) > 0 ? ` (${summary.truncated} TRUNCATED: read in part)` : ''}, ${summary.failed - summary.quarantined.length} failed, ${summary.quarantined.length} quarantined${summary.interrupted === true ? ' (interrupted: partial)' : ''}`,
  );
  const passed = Object.entries(summary.skippedInputs ?? {});
  if (passed.length > 0) {
    lines.push(
      `passed over in folder scans (not regular files): ${passed.map(([why, n]) => `${why} ${n}`).join(', ')}`,
    );
  }
  if (summary.topException) {
    const t = summary.topException;
    lines.push(`top exception: ${t.code} ${t.name} (${t.count} dump${t.count === 1 ? '' : 's'})`);
  }
  const max = options.maxBuckets ?? 10;
  if (summary.buckets.length > 0) {
    lines.push(`buckets (${summary.buckets.length}, algorithm ${summary.algorithm}):`);
    const width = String(summary.buckets[0]?.count ?? 1).length;
    for (const b of summary.buckets.slice(0, max)) {
      // The exception's name as the report's bucket table shows it (a bare 0x20474343 says little).
      const named = b.exception?.name;
      const name =
        named !== undefined && named !== '' && named !== b.exception?.code ? `  (${named})` : '';
      lines.push(`  ${String(b.count).padStart(width)}  ${b.id}  ${b.signature}${name}`);
    }
    if (summary.buckets.length > max)
      lines.push(`  … ${summary.buckets.length - max} more in the report`);
  }
  for (const f of [...summary.quarantined, ...summary.failures].slice(0, max)) {
    lines.push(`  failed: ${f.file}: ${f.code} ${firstLine(f.message)}`);
  }
  lines.push(`report:  ${where.report}`);
  lines.push(`records: ${where.records}`);
  lines.push(`summary: ${where.summary}`);
  return lines.join('\n');
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}
