// Benchmark: the per-dump CPU of `analyze --engine builtin` outside processDump (issue 19), each
// step timed on its own over the same dumps, beside processDump itself:
//   node --import tsx bench/analyze-pipeline.ts [--dumps 500] [--rounds 5] [--input DIR]
//        [--symbol-path PATH]
// Steps: `hash` (read and sha256 a small dump, the bytes kept for the processor), `fields` (the
// record's fields from the processor's state), `sign` (bucket), `bound` (size bounds and the JSON
// text), `validate` (schemas/analyzeRecord.schema.json), `append` (the records.ndjson line, with
// the summary tallies and report row folded in), `finish` (summary.json and report.html, per
// dump). The input is --dumps copies of examples/dumps (system DLL images from the Wine prefix,
// $WINEPREFIX or the repository's .wine, as bench/analyze-walk.ts), or every dump in --input DIR
// (the peer corpus repeated, with --symbol-path its .sym files). Rounds alternate the steps so
// that load on a shared machine hits each alike; each figure is the median over rounds of CPU
// time (user + system, every thread) per dump.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processDump } from '../src/processor/process-dump.js';
import type { ProcessState } from '../src/processor/process-state.js';
import type { AnalyzeDumpRecord } from '../src/report/analyze/analyze-record.js';
import { validate } from '../src/report/schemas.js';
import { analyzeOneDump, type DumpRunContext } from '../src/workflows/analyze/analyze-one.js';
import { builtinFields } from '../src/workflows/analyze/builtin-record.js';
import { dumpSigner } from '../src/workflows/analyze/dump-bucket.js';
import { sha256File, type HashedFile } from '../src/workflows/analyze/file-hash.js';
import { writeSummaryAndReport } from '../src/workflows/analyze/outputs.js';
import { boundRecordJson } from '../src/workflows/analyze/record-bounds.js';
import { RunRecords } from '../src/workflows/analyze/run-records.js';
import { builtinSupplier } from '../src/workflows/analyze/symbols-setup.js';
import { REPO_ROOT } from '../test/helpers/wine.js';
import { option } from './bench-options.js';

const COUNT = Number(option('--dumps', '500'));
const ROUNDS = Number(option('--rounds', '5'));
const given = option('--input', '');
const symbolPath = option('--symbol-path', '');
const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');
const repoPrefix = join(REPO_ROOT, '.wine');
const winePrefix =
  process.env['WINEPREFIX'] ?? (existsSync(join(repoPrefix, 'drive_c')) ? repoPrefix : undefined);
const env = { ...process.env, ...(winePrefix === undefined ? {} : { WINEPREFIX: winePrefix }) };
const KEEP_DUMP_BYTES = 2 * 1024 * 1024; // as analyze.ts

const scratch = mkdtempSync(join(tmpdir(), 'cdbh-bench-pipeline-'));
let input = given;
if (input === '') {
  input = join(scratch, 'in');
  mkdirSync(input);
  const sources = readdirSync(EXAMPLES).filter((f) => f.endsWith('.dmp'));
  for (let i = 0; i < COUNT; i++) {
    const source = sources[i % sources.length]!;
    copyFileSync(join(EXAMPLES, source), join(input, `${String(i).padStart(5, '0')}-${source}`));
  }
}
const files = readdirSync(input)
  .filter((f) => /\.(dmp|mdmp|hdmp)$/i.test(f))
  .sort()
  .map((f) => join(input, f));

const supplier = await builtinSupplier({
  env,
  ...(winePrefix === undefined ? {} : { winePrefix }),
  symbolFiles: true,
  ...(symbolPath === '' ? {} : { symbolPath }),
});
const signer = dumpSigner({});
const ctx: DumpRunContext = {
  engine: 'builtin',
  steps: [],
  outDir: scratch,
  timeoutMs: 120_000,
  signer,
  supplier,
};

/** CPU ms per dump of `fn` over every dump. */
async function timed(fn: (i: number) => unknown): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < files.length; i++) await fn(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / files.length;
}

const hashed: HashedFile[] = [];
const states: ProcessState[] = [];
const records: AnalyzeDumpRecord[] = [];
const figures = new Map<string, number[]>();
const note = (step: string, ms: number) => figures.set(step, [...(figures.get(step) ?? []), ms]);

try {
  // Warm-up, and what every step works from: the hashes, states and records of every dump.
  for (const file of files) {
    const h = await sha256File(file, undefined, { keepUpTo: KEEP_DUMP_BYTES });
    hashed.push(h);
    const state = await processDump(file, {
      ...(h.bytes === undefined ? {} : { bytes: h.bytes }),
      threads: 'exception',
      supplier,
    });
    if (!state.ok) throw new Error(`${file}: ${state.error.message}`);
    states.push(state);
    records.push(await analyzeOneDump(file, h, ctx));
  }
  for (let round = 0; round < ROUNDS; round++) {
    note('processDump', await timed((i) => processStep(i)));
    note(
      'hash',
      await timed((i) => sha256File(files[i]!, undefined, { keepUpTo: KEEP_DUMP_BYTES })),
    );
    note('fields', await timed((i) => builtinFields(states[i]!)));
    note('sign', await timed((i) => signer.sign(records[i]!)));
    const bounded: { record: AnalyzeDumpRecord; json: string }[] = [];
    note('bound', await timed((i) => bounded.push(boundRecordJson(records[i]!))));
    note('validate', await timed((i) => validate('analyzeRecord', bounded[i]!.record)));
    const out = join(scratch, `out-${round}`);
    mkdirSync(out);
    const run = await RunRecords.open(join(out, 'records.ndjson'), signer.algorithm, true);
    note('append', await timed((i) => run.append(bounded[i]!.record, bounded[i]!.json)));
    await run.close();
    const before = process.cpuUsage();
    await writeSummaryAndReport(out, signer.algorithm, {
      onePerInput: true,
      ...(run.collected === undefined ? {} : { collected: run.collected }),
    });
    const used = process.cpuUsage(before);
    note('finish', (used.user + used.system) / 1000 / files.length);
    rmSync(out, { recursive: true, force: true });
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1]!;
  const outside = ['hash', 'fields', 'sign', 'bound', 'validate', 'append', 'finish'];
  const total = outside.reduce((sum, step) => sum + median(figures.get(step)!), 0);
  const core = median(figures.get('processDump')!);
  console.log(
    `${files.length} dumps from ${given === '' ? `${COUNT} copies of examples/dumps` : given}` +
      `${symbolPath === '' ? '' : `, symbols ${symbolPath}`}; median of ${ROUNDS} rounds, CPU ms per dump:`,
  );
  for (const step of outside)
    console.log(`  ${step.padEnd(9)} ${median(figures.get(step)!).toFixed(4)}`);
  console.log(`  ${'outside'.padEnd(9)} ${total.toFixed(4)} (the steps above)`);
  console.log(
    `  ${'processDump'.padEnd(9)} ${core.toFixed(4)}: outside is ${((100 * total) / (total + core)).toFixed(0)}% of the two`,
  );
} finally {
  await supplier.close();
  rmSync(scratch, { recursive: true, force: true });
}

async function processStep(i: number): Promise<void> {
  const h = hashed[i]!;
  await processDump(files[i]!, {
    ...(h.bytes === undefined ? {} : { bytes: h.bytes }),
    threads: 'exception',
    supplier,
  });
}
