// `cdb-harness query OUTDIR…`: the records of analyze output folders that have a frame, a
// module, an exception code or a bucket, as text lines or JSON lines, streamed as they are found
// (workflows/query/query.ts).
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import { addJsonOption, countOption } from '../options.js';
import { parseCount } from '../../units.js';
import {
  queryRecordBatches,
  recordFiles,
  type QueryMatch,
  type QueryStats,
} from '../../workflows/query/query.js';
import { once } from 'node:events';

interface QueryCliOptions {
  frame?: string;
  module?: string;
  code?: string;
  bucket?: string;
  json?: boolean;
  limit?: string;
}

export function registerQuery(context: CommandContext): void {
  const command = context.program
    .command('query')
    .description(
      'Search analyze output folders (records.ndjson) by any frame, module, exception code or bucket.',
    )
    .argument('<outdirs...>', 'analyze --out folders (or records.ndjson files)')
    .option(
      '--frame <filter>',
      'a frame holds this text, any case: store_value, av!crash_here, av+0x154a',
    )
    .option(
      '--module <name>',
      'a frame lies in module NAME, or the dump loaded it: ntdll, KERNELBASE.dll',
    )
    .option('--code <code>', 'the exception code: 0xc0000005, C0000005')
    .option('--bucket <filter>', 'a bucket id (or its first digits), or text of its signature');
  addJsonOption(command, 'one JSON line per match: {source, file, sha256, code, bucket, frames}');
  command
    .addOption(countOption('--limit <n>', 'stop after N matches'))
    .addHelpText(
      'after',
      `
Every criterion given must hold. Frames are the faulting thread's, all of them (not only the
signature's), and a managed exception's stack; a frame matches as printed
(module!function+0xoff) or as module+0xoffset from the module base.

Examples:
  cdb-harness query triage --frame store_value          dumps with store_value anywhere on the stack
  cdb-harness query run1 run2 --module mydriver.dll     across runs: dumps through one module
  cdb-harness query triage --code c0000005 --json       access violations, one JSON line each
  cdb-harness query triage --bucket 763813ad            the dumps of one bucket

Exit codes: 0 some records matched, 1 none did, 2 usage error (no records.ndjson, a bad code).`,
    )
    .action(async (paths: string[], options: QueryCliOptions) => {
      context.setExitCode(await runQuery(paths, options));
    });
}

async function runQuery(paths: readonly string[], options: QueryCliOptions): Promise<number> {
  const files = recordFiles(paths);
  const limit = options.limit === undefined ? Infinity : parseCount(options.limit, '--limit', 1);
  const stats: QueryStats = { files: 0, lines: 0, parsed: 0, matched: 0, badLines: 0 };
  const criteria = {
    ...(options.frame === undefined ? {} : { frame: options.frame }),
    ...(options.module === undefined ? {} : { module: options.module }),
    ...(options.code === undefined ? {} : { code: options.code }),
    ...(options.bucket === undefined ? {} : { bucket: options.bucket }),
  };
  let shown = 0;
  let out = '';
  search: for await (const matches of queryRecordBatches(files, criteria, stats)) {
    for (const match of matches) {
      out += options.json === true ? jsonLine(match) : textLine(match);
      if (++shown >= limit) break search;
    }
    // Written in batches: one write per match costs more than the search itself.
    if (out.length > 64 * 1024) {
      await write(out);
      out = '';
    }
  }
  await write(out);
  process.stderr.write(
    `${shown} of ${stats.lines} records matched in ${stats.files} file(s)${stats.badLines > 0 ? ` (${stats.badLines} lines not records)` : ''}\n`,
  );
  return shown > 0 ? ExitCode.Ok : ExitCode.Failure;
}

function textLine({ record, frames }: QueryMatch): string {
  const bucket = record.bucket === null ? '-'.repeat(16) : record.bucket.id;
  const code = record.exception?.code ?? 'no-exception';
  const at = frames.length > 0 ? `  [${frames.slice(0, 3).join(', ')}]` : '';
  return `${bucket}  ${code.padEnd(10)}  ${record.file}  ${record.bucket?.signature ?? '(no bucket)'}${at}\n`;
}

function jsonLine({ source, record, frames }: QueryMatch): string {
  return `${JSON.stringify({
    source,
    file: record.file,
    sha256: record.sha256,
    code: record.exception?.code ?? null,
    bucket: record.bucket,
    frames,
  })}\n`;
}

async function write(text: string): Promise<void> {
  if (text === '') return;
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}
