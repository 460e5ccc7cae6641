// heap-trend --from-dumps: read a series of dumps (dump-series.ts), trace what holds the growing
// .NET types on the last Linux core (retention.ts, as a live run does), and write the same
// report.json/md/html. The samples' time comes from the dumps, the interval is the median gap.
import { appendFile } from 'node:fs/promises';
import { getDialect } from '../../engine/dialects/index.js';
import { buildHeapTrendReport, secondaryAnalysis } from '../../report/heap-trend/report.js';
import type { RetentionEntry, SuspectRule } from '../../report/heap-trend/types.js';
import {
  readDumpSeries,
  toolOptions,
  type DumpSeries,
  type DumpSeriesOptions,
} from './dump-series.js';
import { traceRetention } from './retention.js';
import { prepareOutDir, writeReports, type HeapTrendResult } from './run-heap-trend.js';

export interface FromDumpsOptions extends DumpSeriesOptions {
  paths: readonly string[];
  outDir: string;
  rule?: Partial<SuspectRule>;
  limitKb?: number;
  /** Top suspect types traced (default 3; 0: none). */
  retentionTypes?: number;
  retentionBudgetMs?: number;
}

function medianGap(series: DumpSeries): number {
  const gaps: number[] = [];
  for (let i = 1; i < series.samples.length; i++) {
    gaps.push((series.samples[i]?.elapsedMs ?? 0) - (series.samples[i - 1]?.elapsedMs ?? 0));
  }
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)] ?? 0;
}

async function retentionOf(
  series: DumpSeries,
  options: FromDumpsOptions,
): Promise<RetentionEntry[] | undefined> {
  const limit = options.retentionTypes ?? 3;
  const core = series.lastCore;
  const sampling = getDialect('dotnet-dump').heapSampling;
  if (limit <= 0 || core === undefined || sampling?.style !== 'dump-per-sample') return undefined;
  const types = secondaryAnalysis(series.samples, (s) => s.clrTypes, 'clr-type', {
    ...(options.rule === undefined ? {} : { rule: options.rule }),
    limit,
  });
  const suspects = (types?.series ?? [])
    .filter((s) => s.suspect && s.id !== 'Free')
    .flatMap((s) => {
      const methodTable = series.methodTables?.get(s.id);
      return methodTable === undefined ? [] : [{ type: s.id, methodTable }];
    });
  return traceRetention(
    (commands, ms) => sampling.analyze(core, commands, toolOptions(options, ms)),
    suspects,
    { budgetMs: options.retentionBudgetMs ?? 60_000 },
  );
}

export async function runHeapTrendFromDumps(
  options: FromDumpsOptions,
): Promise<HeapTrendResult & { series: DumpSeries }> {
  const files = await prepareOutDir(options.outDir);
  const series = await readDumpSeries(options.paths, options);
  const { samples } = series;
  for (const sample of samples) await appendFile(files.samples, `${JSON.stringify(sample)}\n`);
  const retention = await retentionOf(series, options);
  const first = samples[0];
  const last = samples[samples.length - 1];
  const now = new Date().toISOString();
  const report = buildHeapTrendReport(samples, {
    // The process the dumps say they were written from (pid 0: none of them says).
    target: series.target ?? { pid: 0 },
    engine: series.engine,
    source: series.source,
    intervalMs: medianGap(series),
    startedAt: first?.time ?? now,
    endedAt: last?.time ?? now,
    status: samples.length === 0 ? 'failed' : 'completed',
    ...(samples.length === 0 ? { message: 'no dump of the series could be read' } : {}),
    warnings: series.warnings,
    fromDumps: true,
    inputs: series.inputs,
    ...(retention === undefined ? {} : { retention }),
    ...(options.limitKb === undefined ? {} : { limitKb: options.limitKb }),
    ...(options.rule === undefined ? {} : { rule: options.rule }),
  });
  await writeReports(files, report, samples);
  return { report, samples, files, series };
}
