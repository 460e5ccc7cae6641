// Many analyze records for report.html size and speed checks
// (test/report/analyze/html-report.test.ts, bench/html-report.ts). They start from the REAL
// records of the example dumps (builtin engine on examples/dumps, written by winedbg) and are
// varied the way a big crash collection varies: many file names and hosts, a few hundred crash
// signatures with their own stacks (12 frames each, like a walked stack), unique hashes, a share
// of failed dumps with an error and debugger output.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { AnalyzeDumpRecord, AnalyzeSummary } from '../../src/report/analyze/analyze-record.js';
import { SummaryBuilder } from '../../src/report/analyze/summary.js';
import { readRecords } from '../../src/report/analyze/records-file.js';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { REPO_ROOT } from '../helpers/wine.js';

/** The records of the example dumps, analyzed with the builtin engine into `outDir`. */
export async function exampleRecords(outDir: string): Promise<AnalyzeDumpRecord[]> {
  await analyzeDumps({
    inputs: [join(REPO_ROOT, 'examples', 'dumps')],
    outDir,
    engine: 'builtin',
  });
  const records: AnalyzeDumpRecord[] = [];
  for await (const r of readRecords(join(outDir, 'records.ndjson'))) records.push(r);
  return records;
}

/** `count` records made from `bases`, spread over `signatures` buckets; every 50th failed. */
export function* manyRecords(
  bases: readonly AnalyzeDumpRecord[],
  count: number,
  signatures = 300,
): Generator<AnalyzeDumpRecord> {
  for (let i = 0; i < count; i++) {
    const base = bases[i % bases.length]!;
    const crash = i % signatures;
    const sha256 = createHash('sha256').update(`dump ${i}`).digest('hex');
    const frames = Array.from({ length: 12 }, (_, k) => ({
      module: k < 2 ? 'ntdll' : 'app',
      function: k < 2 ? `RtlFrame${k}` : `Component${crash % 40}::Method${crash}_${k}`,
      offset: `0x${(16 * k + crash).toString(16)}`,
      address: `0x7ff6${(0x10000 + crash * 256 + k).toString(16)}`,
      trust: 'debugger' as const,
    }));
    const id = createHash('sha256').update(`bucket ${crash}`).digest('hex').slice(0, 16);
    const record: AnalyzeDumpRecord = {
      ...base,
      file: `/srv/crash-uploads/2026-11-${String(1 + (i % 28)).padStart(2, '0')}/host-${i % 97}/app-${i}.dmp`,
      sha256,
      frames,
      bucket: {
        id,
        signature: `${base.exception?.code ?? 'none'} | app!Component${crash % 40}::Method${crash}_2 | app!Component${crash % 40}::Method${crash}_3`,
        algorithm: 'cdbh-sig-1',
      },
    };
    if (i % 50 === 49) {
      record.ok = false;
      record.bucket = null;
      record.error = {
        code: 'TIMEOUT',
        message: `The debugger did not answer within 120000 ms.`,
        command: '!analyze -v',
        // The first lines of cdb's `!analyze -v` reply (startup/fuzzmanager-full-session-win10-x64-av.txt).
        lastOutput: [
          '0:000> !analyze -v',
          '*******************************************************************************',
          '*                                                                             *',
          '*                        Exception Analysis                                   *',
        ],
      };
    }
    yield record;
  }
}

/** summary.json's shape for `records` (folded as analyze does), and the records as a stream. */
export async function summaryOf(records: Iterable<AnalyzeDumpRecord>): Promise<AnalyzeSummary> {
  const builder = new SummaryBuilder('cdbh-sig-1');
  for (const r of records) builder.add(r);
  return Promise.resolve(builder.build());
}

export async function* streamOf(
  records: Iterable<AnalyzeDumpRecord>,
): AsyncGenerator<AnalyzeDumpRecord> {
  for (const r of records) yield await Promise.resolve(r);
}
