// The files that summarise an output folder: summary.json and report.html, both rebuilt from
// records.ndjson by streaming it once (the report's rows kept as text, bounded, else the report
// streams the file again), so the cost in memory is the bucket table and the rows, not the
// records; or, after a fresh run, from what the run gathered as it wrote each record
// (run-records.ts). Also `--merge` (shard folders → one) and
// `--rebucket` (new signatures from stored records, no dump reopened).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { assertValid } from '../../report/schemas.js';
import type {
  AnalyzeDumpRecord,
  AnalyzeRunOptions,
  AnalyzeSummary,
} from '../../report/analyze/analyze-record.js';
import { REPORT_FILE, writeHtmlReport } from '../../report/analyze/html-report.js';
import {
  RECORDS_FILE,
  RecordAppender,
  readLatestRecords,
  readRecords,
} from '../../report/analyze/records-file.js';
import type { Signer } from '../../report/analyze/signature.js';
import { bucketUnlessCut } from './dump-bucket.js';
import { ReportRows } from '../../report/analyze/report-data.js';
import { shownSummary, type ShowPath } from '../../report/analyze/shown-paths.js';
import { SummaryBuilder } from '../../report/analyze/summary.js';
import { resumeKey } from './file-hash.js';
import type { CollectedOutputs } from './run-records.js';

export const SUMMARY_FILE = 'summary.json';

export interface OutputFiles {
  outDir: string;
  records: string;
  summary: string;
  report: string;
}

export function outputFiles(outDir: string): OutputFiles {
  return {
    outDir,
    records: join(outDir, RECORDS_FILE),
    summary: join(outDir, SUMMARY_FILE),
    report: join(outDir, REPORT_FILE),
  };
}

/**
 * Reads records.ndjson (unless the run gathered what it holds as it wrote it), writes
 * summary.json and report.html next to it; returns the summary.
 */
export async function writeSummaryAndReport(
  outDir: string,
  algorithm: string,
  extra: {
    interrupted?: boolean;
    onBadLine?: (line: number, reason: string) => void;
    options?: AnalyzeRunOptions;
    /** What the folder scans passed over, by reason (FIFOs, broken links…). */
    skippedInputs?: Record<string, number>;
    /**
     * Every record is about a different input (a fresh run over de-duplicated inputs), so the
     * pass that finds each input's newest record is skipped: one parse of the file per output.
     */
    onePerInput?: boolean;
    /** The tallies and report rows gathered while the records were written (run-records.ts). */
    collected?: CollectedOutputs;
    /** `--relative-paths`: how report.html shows dump paths (summary.json keeps them raw). */
    showPath?: ShowPath;
  } = {},
): Promise<AnalyzeSummary> {
  const files = outputFiles(outDir);
  const readOptions = extra.onBadLine === undefined ? {} : { onBadLine: extra.onBadLine };
  // An input recorded twice (it changed and --resume analysed it again) counts once: its newest.
  const latest = (options: typeof readOptions = {}) =>
    extra.onePerInput === true || extra.collected !== undefined
      ? readRecords(files.records, options)
      : readLatestRecords(files.records, options);
  let collected = extra.collected;
  if (collected === undefined) {
    // One pass feeds both: the report's rows are kept (bounded) instead of read a second time.
    collected = {
      summary: new SummaryBuilder(algorithm),
      rows: new ReportRows(undefined, extra.showPath),
    };
    for await (const record of latest(readOptions)) {
      collected.summary.add(record);
      collected.rows.add(record);
    }
  }
  const summary = collected.summary.build({
    ...(extra.interrupted === true ? { interrupted: true } : {}),
    ...(extra.options === undefined ? {} : { options: extra.options }),
    ...(extra.skippedInputs === undefined ? {} : { skippedInputs: extra.skippedInputs }),
  });
  assertValid('analyzeSummary', summary);
  await writeAtomic(files.summary, (tmp) =>
    writeFile(tmp, `${JSON.stringify(summary, null, 2)}\n`, { flag: 'wx' }),
  );
  const rows = collected.rows;
  await writeAtomic(files.report, (tmp) =>
    writeHtmlReport(
      tmp,
      extra.showPath === undefined ? summary : shownSummary(summary, extra.showPath),
      rows.overflowed ? latest() : rows,
      extra.showPath,
    ),
  );
  return summary;
}

/**
 * Writes `path` through a temp file beside it, created exclusively (`wx`, a unique name: a link
 * or file planted under that name makes the create fail, nothing is followed), then renamed over
 * `path` (a rename replaces a link at `path`, never writes through it).
 */
async function writeAtomic(path: string, write: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = `${path}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  try {
    await write(tmp);
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/**
 * `--merge DIR…`: the records of several output folders (shards) into one folder, one record per
 * dump (path + size + sha256, as `--resume` keys it: a dump analysed by two shards, or resumed
 * twice, counts once; an ok record beats a failed one), then summary and report. Raw output folders are not copied: the records keep
 * pointing at the shard folder they came from, by absolute path.
 */
export async function mergeOutputs(
  dirs: readonly string[],
  outDir: string,
  signer: Signer,
): Promise<{ summary: AnalyzeSummary; merged: number; duplicates: number }> {
  for (const dir of dirs) {
    if (!existsSync(join(dir, RECORDS_FILE))) {
      throw new UsageError(
        `--merge: ${dir} has no ${RECORDS_FILE} (is it an analyze --out folder?)`,
      );
    }
  }
  await mkdir(outDir, { recursive: true });
  const target = outputFiles(outDir);
  if (dirs.some((d) => resolve(d) === resolve(outDir))) {
    throw new UsageError('--merge: the output folder must not be one of the folders merged');
  }
  // First pass: which dump has an ok record anywhere (only keys are kept, not records).
  const okKeys = new Set<string>();
  for (const dir of dirs) {
    for await (const r of readRecords(join(dir, RECORDS_FILE))) if (r.ok) okKeys.add(resumeKey(r));
  }
  await rm(target.records, { force: true });
  const appender = await RecordAppender.open(target.records);
  const written = new Set<string>();
  let duplicates = 0;
  try {
    for (const dir of dirs) {
      for await (const r of readRecords(join(dir, RECORDS_FILE))) {
        const key = resumeKey(r);
        if (written.has(key) || (!r.ok && okKeys.has(key))) {
          duplicates++;
          continue;
        }
        written.add(key);
        await appender.append(resign(rebase(r, dir), signer));
      }
    }
  } finally {
    await appender.close();
  }
  const summary = await writeSummaryAndReport(outDir, signer.algorithm, {
    options: { command: 'merge', mergedFrom: dirs.map((d) => resolve(d)) },
  });
  return { summary, merged: written.size, duplicates };
}

/**
 * `--rebucket DIR`: new bucket ids for every record of DIR with the current signature settings,
 * written back in place (through a temp file, so an interrupted rebucket loses nothing).
 */
export async function rebucketOutputs(
  dir: string,
  signer: Signer,
): Promise<{ summary: AnalyzeSummary; records: number; changed: number }> {
  const files = outputFiles(dir);
  if (!existsSync(files.records)) {
    throw new UsageError(`--rebucket: ${dir} has no ${RECORDS_FILE}`);
  }
  const tmp = `${files.records}.rebucket.tmp`;
  await rm(tmp, { force: true });
  const appender = await RecordAppender.open(tmp);
  let records = 0;
  let changed = 0;
  try {
    for await (const r of readRecords(files.records)) {
      const next = resign(r, signer);
      records++;
      if (next.bucket?.id !== r.bucket?.id) changed++;
      await appender.append(next);
    }
  } finally {
    await appender.close();
  }
  await rename(tmp, files.records);
  const summary = await writeSummaryAndReport(dir, signer.algorithm, {
    options: { command: 'rebucket' },
  });
  return { summary, records, changed };
}

function resign(record: AnalyzeDumpRecord, signer: Signer): AnalyzeDumpRecord {
  if (!record.ok) return { ...record, bucket: null };
  return { ...record, bucket: bucketUnlessCut(record, signer) };
}

/** Raw-output paths are relative to their folder; after a merge they point back to it. */
function rebase(record: AnalyzeDumpRecord, fromDir: string): AnalyzeDumpRecord {
  if (record.rawOutputs.length === 0) return record;
  return {
    ...record,
    rawOutputs: record.rawOutputs.map((o) => ({
      command: o.command,
      path: resolve(fromDir, o.path).replace(/\\/g, '/'),
    })),
  };
}
