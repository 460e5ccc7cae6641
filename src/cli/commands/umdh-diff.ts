// `cdb-harness umdh-diff SNAP…` (issue #7): umdh compares two logs at a time; this compares N.
// Per allocation stack: bytes (and allocations) in every snapshot, growth, slope, the share of
// intervals in which it grew, the allocation site; top growing stacks first. Text or JSON
// (schemas/umdhTrend.schema.json). Works on any OS: it reads files umdh already wrote.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { renderUmdhMarkdown } from '../../report/heap-trend/markdown.js';
import type { UmdhTrend } from '../../report/heap-trend/umdh-trend.js';
import { validate } from '../../report/schemas.js';
import { runUmdhDiff } from '../../workflows/umdh/umdh-diff.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode, exitCodeFor } from '../exit-codes.js';
import { countOption, printError } from '../options.js';

export interface UmdhDiffCliOptions {
  json?: boolean;
  top?: string;
  key?: string;
  mtime?: boolean;
  out?: string;
}

function text(trend: UmdhTrend): string {
  const head = trend.snapshots
    .map(
      (s, i) =>
        `  ${i + 1}. ${s.file} (${s.kind}, ${s.entries} stacks${s.time === undefined ? '' : `, ${s.time}`})`,
    )
    .join('\n');
  return `Snapshots:\n${head}\n\n${renderUmdhMarkdown(trend, 10)}`;
}

export function registerUmdhDiff(context: CommandContext): void {
  context.program
    .command('umdh-diff')
    .description(
      'Compare N umdh snapshots (not just 2): per allocation stack growth, slope and consistency.',
    )
    .argument(
      '<snapshots...>',
      'umdh snapshot logs in time order (≥ 2), or chained umdh comparison reports (≥ 1)',
    )
    .option('--json', 'print the trend as JSON (schemas/umdhTrend.schema.json)')
    .addOption(countOption('--top <n>', 'how many stacks to list (default 50 in JSON, 10 in text)'))
    .option(
      '--key <key>',
      'match stacks by "backtrace" id (same process, default) or by "frames" (across restarts)',
    )
    .option('--mtime', "use the files' modification times as snapshot times (adds bytes per hour)")
    .option('--out <dir>', 'also write the trend into this folder (umdh-trend.json, umdh-trend.md)')
    .addHelpText(
      'after',
      `
What it replaces: "umdh -p:PID -f:snap1.log", later "-f:snap2.log", …, then "umdh snap1.log
snap2.log > cmp.txt" for every pair and reading each comparison by eye. With N snapshots a leak
shows as a stack whose bytes grow in (nearly) every interval, not once.

A stack is a leak suspect when, across at least 3 snapshots, it grew in ≥ 70 % of the intervals,
a straight line fits (R² ≥ 0.8) and it grew by ≥ 64 KB. umdh needs the stack-trace database
(see "cdb-harness gflags --enable-ust IMAGE") and _NT_SYMBOL_PATH for names.

Exit codes: 0 compared, 1 a snapshot could not be read or parsed, 2 usage error.

Examples:
  cdb-harness umdh-diff snap1.log snap2.log snap3.log snap4.log
  cdb-harness umdh-diff cmp12.txt cmp23.txt cmp34.txt --json --out trend`,
    )
    .action(async (snapshots: string[], cli: UmdhDiffCliOptions) => {
      context.setExitCode(await runUmdhDiffCli(snapshots, cli));
    });
}

export async function runUmdhDiffCli(files: string[], cli: UmdhDiffCliOptions): Promise<number> {
  try {
    if (cli.key !== undefined && cli.key !== 'backtrace' && cli.key !== 'frames') {
      throw new UsageError(`--key must be backtrace or frames, got ${cli.key}`);
    }
    const top = cli.top === undefined ? undefined : Number(cli.top);
    if (top !== undefined && (!Number.isInteger(top) || top < 1)) {
      throw new UsageError(`--top must be a whole number ≥ 1, got ${cli.top ?? ''}`);
    }
    const trend = await runUmdhDiff({
      files,
      ...(cli.key === undefined ? {} : { key: cli.key }),
      ...(top === undefined ? {} : { top }),
      ...(cli.mtime === true ? { useMtime: true } : {}),
    });
    const check = validate('umdhTrend', trend);
    if (!check.ok)
      process.stderr.write(
        `warning: trend does not match its schema: ${check.errors.join('; ')}\n`,
      );
    const json = `${JSON.stringify(trend, null, 2)}\n`;
    if (cli.out !== undefined) {
      await mkdir(cli.out, { recursive: true });
      await writeFile(join(cli.out, 'umdh-trend.json'), json);
      await writeFile(join(cli.out, 'umdh-trend.md'), `${text(trend)}\n`);
    }
    process.stdout.write(cli.json === true ? json : `${text(trend)}\n`);
    return ExitCode.Ok;
  } catch (error) {
    printError(error);
    return exitCodeFor(error);
  }
}
