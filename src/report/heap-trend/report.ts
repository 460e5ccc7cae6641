// Assembles report.json from the samples and what the run knows about itself (target, engine, how
// it ended, threshold dumps, umdh). Pure: the workflow writes the files.
import { analyzeHeapTrend } from './analysis.js';
import { round } from './regression.js';
import type {
  HeapTrendEngine,
  HeapTrendReport,
  HeapTrendSample,
  HeapTrendSource,
  HeapTrendStatus,
  SuspectRule,
  ThresholdDump,
} from './types.js';
import type { UmdhTrend } from './umdh-trend.js';

/** What the numbers are, in words: the committed-memory view must never pass for a heap view. */
export function viewText(source: HeapTrendSource): string {
  return source === 'heap'
    ? 'Per-heap view: reserved and committed KB of every NT heap, from `!heap -s -h 0` in a short ' +
        'noninvasive cdb attach per sample (the target is suspended for the length of each attach).'
    : 'Committed-memory view, NOT a per-heap one: committed private memory of the target from ' +
        'winedbg `info maps <pid>` (VirtualQueryEx, no attach: the target is never suspended), ' +
        'grouped into regions of contiguous private allocations. A heap shows up as the region(s) ' +
        'holding its segments; memory committed with VirtualAlloc outside any heap is counted too.';
}

export interface HeapTrendReportMeta {
  target: { pid: number; name?: string };
  engine: HeapTrendEngine;
  source: HeapTrendSource;
  intervalMs: number;
  startedAt: string;
  endedAt: string;
  status: HeapTrendStatus;
  message?: string;
  dumps?: readonly ThresholdDump[];
  umdh?: { snapshots: string[]; trend?: UmdhTrend; error?: string };
  warnings?: readonly string[];
  limitKb?: number;
  rule?: Partial<SuspectRule>;
}

export function buildHeapTrendReport(
  samples: readonly HeapTrendSample[],
  meta: HeapTrendReportMeta,
): HeapTrendReport {
  const analysis = analyzeHeapTrend(samples, {
    ...(meta.rule === undefined ? {} : { rule: meta.rule }),
    ...(meta.limitKb === undefined ? {} : { limitKb: meta.limitKb }),
    unit: meta.source === 'heap' ? 'heap' : 'region',
  });
  let totalMs = 0;
  let maxMs = 0;
  for (const sample of samples) {
    totalMs += sample.suspendedMs;
    if (sample.suspendedMs > maxMs) maxMs = sample.suspendedMs;
  }
  const report: HeapTrendReport = {
    schemaVersion: 1,
    target: meta.target,
    engine: meta.engine,
    source: meta.source,
    view: viewText(meta.source),
    status: meta.status,
    ...(meta.message === undefined ? {} : { message: meta.message }),
    startedAt: meta.startedAt,
    endedAt: meta.endedAt,
    intervalMs: meta.intervalMs,
    sampleCount: samples.length,
    ...analysis,
    dumps: [...(meta.dumps ?? [])],
    suspension: {
      totalMs: round(totalMs, 1),
      maxMs: round(maxMs, 1),
      meanMs: samples.length === 0 ? 0 : round(totalMs / samples.length, 1),
    },
    ...(meta.umdh === undefined ? {} : { umdh: meta.umdh }),
    warnings: [...(meta.warnings ?? [])],
  };
  return report;
}
