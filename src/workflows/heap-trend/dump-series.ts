// `heap-trend --from-dumps FILE… | DIR`: the same report from dumps already written (ProcDump -m
// steps, `dump -m`, `--dump-at`, `dotnet-dump collect`). Each file is one sample, at the time it
// was taken: a Windows minidump's header time (MINIDUMP_HEADER.TimeDateStamp), or the file's
// modification time for a Linux core (ELF has no capture time). Windows dumps give, with no
// debugger, a series per process heap (processDump walks each heap's sub-heaps/segments and large
// blocks: processor/heap-walk.ts; native-heaps.ts makes the rows) beside memory by category
// (memory-categories.ts: the MemoryInfoList, the heaps' allocations, the threads' stacks); a few
// hundred KB read per dump, whatever its size. When a dump's heaps cannot be walked (a layout not
// read here), the series is by category, the heap category counts the allocations holding the
// heap bases, and the warnings say why. Linux cores of .NET processes
// go through dotnet-dump (eeheap -gc, dumpheap -stat -live). A Windows dump of a .NET process also
// asks dotnet-dump for the GC's regions (gc-regions.ts) to split the managed heap out of private
// data, where dotnet-dump can read Windows dumps. A file that cannot be read is a warning and is
// left out; the series goes on.
import { open, readdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  bytePathOf,
  compareBytePaths,
  joinBytePath,
  pathBytes64,
  pathKey,
  pathText,
  type BytePath,
} from '../../common/byte-path.js';
import { pathFromArgv } from '../argv-path.js';
import type { DumpToolOptions, SosBatchOutputs } from '../../engine/dialects/index.js';
import { getDialect } from '../../engine/dialects/index.js';
import { AbortedError, shortErrorMessage, UsageError } from '../../errors.js';
import { findClrRuntime } from '../../processor/clr.js';
import { processDump } from '../../processor/process-dump.js';
import type { HeapTrendReport, HeapTrendSample } from '../../report/heap-trend/types.js';
import { CLR_SAMPLE_COMMANDS, readClrOutputs } from './clr-readings.js';
import { createGcRegionLookup, type GcRegionLookup } from './gc-regions.js';
import { categorizeRegions } from './memory-categories.js';
import { heapNoteLines, nativeHeapReading, type NativeHeapReading } from './native-heaps.js';
import { seriesTarget } from './dump-target.js';

/** What the first bytes say a file is. */
export type DumpFileKind = 'minidump' | 'elf-core' | 'unknown';

export interface DumpSeriesOptions {
  env?: NodeJS.ProcessEnv;
  /** dotnet-dump, for Linux cores (`--debugger`). */
  debuggerPath?: string;
  /** Per dotnet-dump analyze batch (default 120 s). */
  commandTimeoutMs?: number;
  signal?: AbortSignal;
  /** At most this many files (default 10,000): a folder of millions is refused, not read. */
  maxFiles?: number;
}

export interface DumpSeries {
  samples: HeapTrendSample[];
  inputs: NonNullable<HeapTrendReport['inputs']>;
  source: 'heap' | 'category' | 'clr-generation';
  engine: 'builtin' | 'dotnet-dump';
  warnings: string[];
  /** The process the dumps were written from (the last used dump's), when they say. */
  target?: { pid: number; name?: string };
  /** Linux cores: the last one read, and its types' method tables (for retention). */
  lastCore?: string;
  methodTables?: Map<string, string>;
  /** Bytes read from each Windows dump (the bench checks the bound). */
  bytesRead: number[];
}

const DEFAULT_MAX_FILES = 10_000;

export async function sniffDumpFile(path: BytePath): Promise<DumpFileKind> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    if (bytesRead < 4) return 'unknown';
    if (head.toString('latin1') === 'MDMP') return 'minidump';
    if (head[0] === 0x7f && head.toString('latin1', 1, 4) === 'ELF') return 'elf-core';
    return 'unknown';
  } finally {
    await handle.close();
  }
}

/**
 * The files named, folders expanded to their regular files (sorted by name), duplicates once.
 * Folder names are read as bytes: a name that is not valid UTF-8 stays bytes (common/byte-path.ts).
 */
export async function expandInputs(
  paths: readonly string[],
  maxFiles = DEFAULT_MAX_FILES,
): Promise<BytePath[]> {
  if (paths.length === 0) throw new UsageError('--from-dumps needs at least one file or folder');
  const files: BytePath[] = [];
  for (const path of paths) {
    const full = (await pathFromArgv(resolve(path))).path;
    let info;
    try {
      info = await stat(full);
    } catch {
      files.push(full); // reported as missing when read
      continue;
    }
    if (info.isDirectory()) {
      const names = (await readdir(full, { encoding: 'buffer' })).sort((a, b) =>
        Buffer.compare(a, b),
      );
      for (const name of names) {
        const child = joinBytePath(full, bytePathOf(name));
        if ((await stat(child).catch(() => null))?.isFile() === true) files.push(child);
        if (files.length > maxFiles) break;
      }
    } else files.push(full);
    if (files.length > maxFiles) {
      throw new UsageError(`--from-dumps: more than ${maxFiles} files; name fewer`);
    }
  }
  return [...new Map(files.map((f) => [pathKey(f), f])).values()];
}

interface WindowsReading {
  time: string;
  categories: HeapTrendSample['heaps'];
  /** Per heap, when processDump walked the heaps. */
  native?: NativeHeapReading;
  totals: NonNullable<HeapTrendSample['memoryTotals']>;
  pid?: number;
  /** The main module's file name (the first module a minidump lists is the process image). */
  name?: string;
  bytesRead: number;
}

/**
 * One Windows dump's sample, through the processor (its one way into a dump): the streams and
 * the regions and heaps, no walk (`threads: 'none'`), so a few hundred KB are read whatever the
 * dump's size (bench/heap-trend-from-dumps.ts). Why it is not a sample, when it is not one.
 */
async function readWindowsDump(
  path: BytePath,
  signal: AbortSignal | undefined,
  gc?: GcRegionLookup,
): Promise<WindowsReading | { error: string }> {
  const state = await processDump(path, {
    threads: 'none',
    regions: true,
    ...(signal === undefined ? {} : { signal }),
  });
  if (!state.ok) return { error: state.error.message };
  const regions = state.regions?.regions;
  if (regions === undefined || regions === null) {
    return {
      error:
        'no MemoryInfoList stream (not a full dump: write one with .dump /ma, procdump -ma or dump --full)',
    };
  }
  // A .NET process: the GC's regions from eeheap -gc on the same dump are the managed heap.
  const managed =
    findClrRuntime(state.modules) !== null && gc !== undefined && typeof path === 'string'
      ? await gc.addressesOf(path)
      : undefined;
  const walk = state.regions?.heapWalk;
  const native = walk === undefined ? undefined : nativeHeapReading(walk);
  const { categories, totals } = categorizeRegions(regions, {
    heaps: [...(state.regions?.heaps ?? []), ...(native?.allocations ?? [])],
    stackAddresses: state.threads.map((t) => t.stack.start),
    ...(managed === undefined ? {} : { managedAddresses: managed }),
  });
  const pid = state.process.pid;
  const name = state.modules[0]?.name;
  return {
    ...(name === undefined || name === '' ? {} : { name }),
    time: new Date(state.time * 1000).toISOString(),
    categories,
    ...(native === undefined ? {} : { native }),
    totals,
    ...(pid === undefined ? {} : { pid }),
    bytesRead: state.bytesRead,
  };
}

/** `file` is the path as text; `path` what fs calls take (bytes for a name not valid UTF-8). */
type Entry = { file: string; path: BytePath } & (
  | { kind: 'minidump'; time: string; reading: WindowsReading }
  | { kind: 'elf-core'; time: string }
  | { kind: 'bad'; time: string; error: string }
);

export async function readDumpSeries(
  paths: readonly string[],
  options: DumpSeriesOptions = {},
): Promise<DumpSeries> {
  const files = await expandInputs(paths, options.maxFiles);
  const gc = createGcRegionLookup(toolOptions(options));
  const entries: Entry[] = [];
  for (const path of files) {
    const file = pathText(path);
    try {
      const kind = await sniffDumpFile(path);
      if (kind === 'minidump') {
        const reading = await readWindowsDump(path, options.signal, gc);
        if ('error' in reading) entries.push({ file, path, kind: 'bad', time: '', ...reading });
        else entries.push({ file, path, kind, time: reading.time, reading });
      } else if (kind === 'elf-core') {
        entries.push({ file, path, kind, time: (await stat(path)).mtime.toISOString() });
      } else {
        entries.push({
          file,
          path,
          kind: 'bad',
          time: '',
          error: 'neither a minidump (MDMP) nor an ELF core',
        });
      }
    } catch (error) {
      if (error instanceof AbortedError) throw error;
      entries.push({ file, path, kind: 'bad', time: '', error: shortErrorMessage(error) });
    }
  }
  const cores = entries.filter((e) => e.kind === 'elf-core').length;
  const windows = entries.filter((e) => e.kind === 'minidump').length;
  const managed = cores > 0 && cores >= windows;
  const readings = entries.flatMap((e) => (e.kind === 'minidump' ? [e] : []));
  // A series per heap when every Windows dump's heaps were walked; else by category, as before.
  const perHeap =
    !managed && readings.length > 0 && readings.every((e) => e.reading.native?.walked === true);
  const series: DumpSeries = {
    samples: [],
    inputs: [],
    source: managed ? 'clr-generation' : perHeap ? 'heap' : 'category',
    engine: managed ? 'dotnet-dump' : 'builtin',
    warnings: [...gc.warnings, ...(managed ? [] : heapNotes(readings, perHeap))],
    bytesRead: [],
  };
  const usable = entries
    .filter((e) => e.kind !== 'bad')
    .sort((a, b) =>
      a.time < b.time ? -1 : a.time > b.time ? 1 : compareBytePaths(a.path, b.path),
    );
  for (const e of entries) {
    if (e.kind === 'bad') {
      series.inputs.push({ ...inputName(e), time: e.time, used: false, error: e.error });
      series.warnings.push(`${e.file}: skipped: ${e.error}`);
    }
  }
  const t0 = usable[0] === undefined ? 0 : Date.parse(usable[0].time);
  for (const e of usable) {
    const wanted = managed ? 'elf-core' : 'minidump';
    if (e.kind !== wanted) {
      const error = `a ${e.kind === 'minidump' ? 'Windows minidump' : 'Linux core'} in a series of ${managed ? 'Linux cores' : 'Windows dumps'}`;
      series.inputs.push({ ...inputName(e), time: e.time, used: false, error });
      series.warnings.push(`${e.file}: skipped: ${error}`);
      continue;
    }
    const base = {
      time: e.time,
      index: series.samples.length,
      elapsedMs: Date.parse(e.time) - t0,
      suspendedMs: 0,
      durationMs: 0,
      dumpFile: e.file,
    };
    if (e.kind === 'minidump') {
      series.bytesRead.push(e.reading.bytesRead);
      const rows = perHeap ? (e.reading.native?.rows ?? []) : e.reading.categories;
      series.samples.push({
        ...base,
        heaps: rows,
        source: perHeap ? 'heap' : 'category',
        ...(perHeap ? { categories: e.reading.categories } : {}),
        engine: 'builtin',
        totalCommittedKb: rows.reduce((n, c) => n + c.committedKb, 0),
        memoryTotals: e.reading.totals,
        warnings: [],
      });
      series.inputs.push({ ...inputName(e), time: e.time, used: true });
      continue;
    }
    if (e.kind !== 'elf-core') continue;
    const sample = await readCore(e.path, options, base);
    if ('error' in sample) {
      series.inputs.push({ ...inputName(e), time: e.time, used: false, error: sample.error });
      series.warnings.push(`${e.file}: skipped: ${sample.error}`);
      continue;
    }
    series.samples.push(sample.sample);
    series.inputs.push({ ...inputName(e), time: e.time, used: true });
    if (sample.sample.unused !== undefined) continue;
    series.lastCore = e.file;
    series.methodTables = sample.methodTables;
  }
  const used = new Set(series.inputs.filter((i) => i.used).map((i) => i.file));
  const target = await seriesTarget(
    usable.filter((e) => used.has(e.file)),
    series.warnings,
  );
  if (target !== undefined) series.target = target;
  return series;
}

async function readCore(
  file: BytePath,
  options: DumpSeriesOptions,
  base: Omit<HeapTrendSample, 'heaps' | 'source' | 'engine' | 'totalCommittedKb' | 'warnings'>,
): Promise<{ sample: HeapTrendSample; methodTables: Map<string, string> } | { error: string }> {
  const sampling = getDialect('dotnet-dump').heapSampling;
  if (sampling?.style !== 'dump-per-sample') return { error: 'dotnet-dump cannot read dumps' };
  if (typeof file !== 'string') {
    // A command line is text: the bytes of this name cannot reach dotnet-dump.
    return { error: 'its name is not valid UTF-8, which dotnet-dump cannot be given: rename it' };
  }
  let batch: SosBatchOutputs;
  try {
    batch = await sampling.analyze(file, CLR_SAMPLE_COMMANDS, toolOptions(options));
  } catch (error) {
    return { error: shortErrorMessage(error) };
  }
  if (batch.outputs.length === 0) {
    return { error: `SOS gave no answer (${batch.stopped?.text ?? 'no output'})` };
  }
  const reading = readClrOutputs(batch.outputs[0], batch.outputs[1]);
  if (batch.stopped !== undefined) {
    reading.warnings.push(`${batch.stopped.command} stopped: ${batch.stopped.text}`);
  }
  return {
    sample: {
      ...base,
      heaps: reading.generations,
      clrTypes: reading.types,
      source: 'clr-generation',
      engine: 'dotnet-dump',
      totalCommittedKb: reading.generations.reduce((n, g) => n + g.committedKb, 0),
      warnings: reading.warnings,
      // A dump written mid-GC: SOS cannot walk its heap (no retry: the dump is what it is).
      ...(reading.refusal === undefined ? {} : { unused: `SOS: ${reading.refusal}` }),
    },
    methodTables: reading.methodTables,
  };
}

/** Each heap note once (the same heap is usually in every dump), and why there is no per-heap series. */
function heapNotes(
  readings: readonly { file: string; reading: WindowsReading }[],
  perHeap: boolean,
): string[] {
  const notes = heapNoteLines(readings.flatMap((e) => e.reading.native ?? []));
  const unwalked = readings.filter((e) => e.reading.native?.walked !== true);
  if (!perHeap && unwalked.length > 0) {
    notes.push(
      `no series per heap: the heaps of ${unwalked[0]?.file ?? 'a dump'}${unwalked.length > 1 ? ` and ${unwalked.length - 1} other dump(s)` : ''} could not be walked; the heap category counts the allocations holding the heap bases only`,
    );
  }
  return notes;
}

/** The report's name for an input: its text, and its exact bytes when they are not UTF-8. */
function inputName(e: Entry): { file: string; fileBytes?: string } {
  const bytes = pathBytes64(e.path);
  return { file: e.file, ...(bytes === undefined ? {} : { fileBytes: bytes }) };
}

export function toolOptions(options: DumpSeriesOptions, timeoutMs?: number): DumpToolOptions {
  return {
    timeoutMs: timeoutMs ?? options.commandTimeoutMs ?? 120_000,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.debuggerPath === undefined ? {} : { debuggerPath: options.debuggerPath }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
}
