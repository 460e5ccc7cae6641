// heap-trend --from-gcdumps FILE… | DIR: the report from `.gcdump` files already written
// (`dotnet-gcdump collect` by hand or by a scheduler, dotnet-monitor's gcdump egress: users ask for
// exactly this, dotnet/diagnostics#791, dotnet/dotnet-monitor#243). Each file is one sample at its
// own time: the time inside the file when the writer set one (dotnet-gcdump leaves it empty), else
// the file's modification time. The main series is the GC heap's total; per-type counts and bytes
// come from each file's graph; what holds the flagged types comes from the last file's graph, with
// the first file's counts beside it. No tool and no process are needed: the files are read here.
import { appendFile, stat } from 'node:fs/promises';
import { loadGcDump } from '../../engine/dialects/dotnet-gcdump/collect.js';
import { typeHistogram } from '../../engine/dialects/dotnet-gcdump/type-histogram.js';
import { compareBytePaths, pathText, type BytePath } from '../../common/byte-path.js';
import { AbortedError, shortErrorMessage, UsageError } from '../../errors.js';
import { buildHeapTrendReport } from '../../report/heap-trend/report.js';
import type {
  HeapTrendReport,
  HeapTrendSample,
  RetentionEntry,
  SuspectRule,
} from '../../report/heap-trend/types.js';
import { flaggedTypes, graphRetention, tiersOf } from './clr-tiers-end.js';
import type { Snapshot } from './clr-tiers-sampler.js';
import { expandInputs } from './dump-series.js';
import { prepareOutDir, writeReports, type HeapTrendResult } from './run-heap-trend.js';

export interface FromGcDumpsOptions {
  paths: readonly string[];
  outDir: string;
  rule?: Partial<SuspectRule>;
  limitKb?: number;
  /** Top flagged types traced (default 3; 0: none). */
  retentionTypes?: number;
  /** At most this many files (default 10,000). */
  maxFiles?: number;
  signal?: AbortSignal;
}

/** What is kept of each file: its sizes, not its graph (two graphs are read again at the end). */
interface Read {
  path: BytePath;
  file: string;
  time: string;
  bytes: number;
  totalSize: number;
  types: NonNullable<HeapTrendSample['clrTypes']>;
  processId: number;
  processName: string | null;
}

/** Reads every file; the ones that are not gcdumps are inputs with the reason. */
async function readAll(
  files: readonly BytePath[],
  signal: AbortSignal | undefined,
): Promise<{ read: Read[]; inputs: NonNullable<HeapTrendReport['inputs']>; warnings: string[] }> {
  const read: Read[] = [];
  const inputs: NonNullable<HeapTrendReport['inputs']> = [];
  const warnings: string[] = [];
  for (const path of files) {
    if (signal?.aborted === true) throw new AbortedError('--from-gcdumps interrupted');
    const file = pathText(path);
    try {
      const { dump, bytes } = await loadGcDump(file);
      const time = dump.timeCollected ?? (await stat(path)).mtime.toISOString();
      const types = typeHistogram(dump).map((row) => ({
        id: row.name,
        committedKb: row.bytes / 1024,
        count: row.count,
      }));
      read.push({
        path,
        file,
        time,
        bytes,
        totalSize: dump.totalSize,
        types,
        processId: dump.processId,
        processName: dump.processName,
      });
    } catch (error) {
      const reason = shortErrorMessage(error);
      inputs.push({ file, time: '', used: false, error: reason });
      warnings.push(`${file}: skipped: ${reason}`);
    }
  }
  return { read, inputs, warnings };
}

export async function runHeapTrendFromGcDumps(
  options: FromGcDumpsOptions,
): Promise<HeapTrendResult> {
  if (options.paths.length === 0) {
    throw new UsageError('--from-gcdumps needs at least one file or folder');
  }
  const files = await prepareOutDir(options.outDir);
  const listed = await expandInputs(options.paths, options.maxFiles);
  const { read, inputs, warnings } = await readAll(listed, options.signal);
  read.sort((a, b) =>
    a.time < b.time ? -1 : a.time > b.time ? 1 : compareBytePaths(a.path, b.path),
  );
  const t0 = read[0] === undefined ? 0 : Date.parse(read[0].time);
  const samples: HeapTrendSample[] = read.map((r, index) => {
    const total = r.totalSize / 1024;
    return {
      time: r.time,
      heaps: [{ id: 'gc-heap', committedKb: total }],
      suspendedMs: 0,
      source: 'clr-generation',
      index,
      elapsedMs: Date.parse(r.time) - t0,
      totalCommittedKb: total,
      durationMs: 0,
      engine: 'builtin',
      warnings: [],
      clrTypes: r.types,
      tiers: { heaps: 'gcdump', clrTypes: 'gcdump' },
      gcdumpFile: r.file,
      gcdumpBytes: r.bytes,
    };
  });
  for (const r of read) inputs.push({ file: r.file, time: r.time, used: true });
  for (const sample of samples) await appendFile(files.samples, `${JSON.stringify(sample)}\n`);
  const { retention, file: retentionFile } = await retentionOf(read, samples, options, warnings);
  const gaps = samples.slice(1).map((s, i) => s.elapsedMs - (samples[i]?.elapsedMs ?? 0));
  gaps.sort((a, b) => a - b);
  const now = new Date().toISOString();
  const report = buildHeapTrendReport(samples, {
    target: targetOf(read),
    engine: 'builtin',
    source: 'clr-generation',
    intervalMs: gaps[Math.floor(gaps.length / 2)] ?? 0,
    startedAt: samples[0]?.time ?? now,
    endedAt: samples[samples.length - 1]?.time ?? now,
    status: samples.length === 0 ? 'failed' : 'completed',
    ...(samples.length === 0 ? { message: 'no gcdump of the series could be read' } : {}),
    warnings,
    fromDumps: true,
    inputs,
    ...(retention === undefined ? {} : { retention }),
    tiers: tiersOf(samples, 1, retentionFile),
    ...(options.limitKb === undefined ? {} : { limitKb: options.limitKb }),
    ...(options.rule === undefined ? {} : { rule: options.rule }),
  });
  await writeReports(files, report, samples);
  return { report, samples, files };
}

/** Chains of the flagged types from the last file's graph, the first file's counts beside them. */
async function retentionOf(
  read: readonly Read[],
  samples: readonly HeapTrendSample[],
  options: FromGcDumpsOptions,
  warnings: string[],
): Promise<{ retention?: RetentionEntry[]; file?: string }> {
  const limit = options.retentionTypes ?? 3;
  const types = limit > 0 ? flaggedTypes(samples, limit, options.rule) : [];
  const firstRead = read[0];
  const lastRead = read[read.length - 1];
  if (limit <= 0 || firstRead === undefined || lastRead === undefined) return {};
  try {
    const snapshot = async (r: Read, index: number): Promise<Snapshot> => ({
      file: r.file,
      index,
      dump: (await loadGcDump(r.file)).dump,
    });
    const last = await snapshot(lastRead, read.length - 1);
    const first = read.length > 1 ? await snapshot(firstRead, 0) : undefined;
    const retention = graphRetention(types, { last, ...(first === undefined ? {} : { first }) });
    return { retention, file: lastRead.file };
  } catch (error) {
    warnings.push(`retention: ${shortErrorMessage(error)}`);
    return {};
  }
}

/** The process the files name, when they do (dotnet-gcdump leaves pid 0 and no name). */
function targetOf(read: readonly Read[]): { pid: number; name?: string } {
  const named = read.find((r) => r.processId > 0);
  if (named === undefined) return { pid: 0 };
  return {
    pid: named.processId,
    ...(named.processName === null ? {} : { name: named.processName }),
  };
}
