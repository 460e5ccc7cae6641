// `cdb-harness analyze PATH…`: the command line and its help: batch triage of dumps into
// records.ndjson, summary.json and report.html, plus the output-folder tools (--merge,
// --rebucket). The run is analyze-run.ts.
import { InvalidArgumentError, Option } from 'commander';
import { DIALECT_NAMES } from '../../engine/dialects/index.js';
import { DEFAULT_TIMEOUT_MS } from '../../workflows/analyze/analyze.js';
import { DUMP_EXTENSIONS } from '../../workflows/analyze/inputs.js';
import { MIN_DUMPS_FOR_THREADS } from '../../workflows/analyze/thread-plan.js';
import { addSigningOptions } from '../signature-options.js';
import type { CommandContext } from '../command-context.js';
import { addCyborgOption, openJsonSink } from '../cyborg.js';
import {
  addDebuggerOption,
  addJsonOption,
  addOutOption,
  addRecordOption,
  addSymbolLimitOptions,
  addSymbolOptions,
  addWinePrefixOption,
  attach,
  countOption,
  durationOption,
  ProcDumpStyleCommand,
  sizeOption,
} from '../options.js';
import { ENGINE_WORDS, runAnalyze, type AnalyzeCliOptions } from './analyze-run.js';

const HELP = `
Each dump is first read by the built-in minidump reader (cheap: empty, truncated and non-dump
files are reported right there), then analysed by the engine in its own debugger process with a
per-dump timeout. A dump that hangs the debugger is recorded as failed with the debugger's last
output lines; one that crashes the debugger twice is quarantined. The batch always goes on.

Engines:
  cdb       cdb.exe (Windows; found via CDB_PATH or the Windows SDK folders)
  winedbg   Wine's debugger on Linux (exception, backtrace with symbols, modules)
  builtin   no debugger: exception, threads, modules and memory straight from the file, and
            the crashing thread's stack walked with the modules' unwind data (images from the
            dump, recorded Z:\\ paths, --image-path, recorded C:\\ paths only under
            --wine-prefix); with --symbols (or _NT_SYMBOL_PATH), frames named from PDBs and
            Breakpad .sym files
  auto      cdb if found, else builtin (the choice is printed); winedbg only when asked for
  any       with --queue (the default there): any worker takes the dump, whatever its engine;
            a list such as cdb,builtin names the engines that may; each record says which did

Outputs (under --out, default ./cdb-harness-out/analyze-<yyMMdd_HHmmss>):
  records.ndjson   one JSON record per dump, appended as each finishes (tail -f works)
  summary.json     counts, failures, quarantined dumps and buckets
  report.html      self-contained page: bucket table and chart, one section per dump
  raw/<sha>/       debugger output per command per dump

Buckets group dumps by a versioned signature (cdbh-sig-3): the exception (code, AV
read/write/execute, or the managed exception type) plus the first 3 frames outside system and
runtime modules (ntdll, kernelbase, msvcrt, clr, coreclr, …) and the raising machinery; see
docs/bucketing.md. Frames are module!function when all of them have a name, else module+offset,
whatever symbols the run had; frames found by scanning count only when nothing else was found,
marked ~. --skip-modules and --signature-lists add to the default lists (cdb-harness
signature-lists prints them); --rebucket re-signs stored records with the lists given.

Threads (builtin engine): a batch of ${MIN_DUMPS_FOR_THREADS} dumps or more on a machine with 2+ cores is
analysed on one analyze thread per core (at most 8) while the main thread writes records and progress; smaller
batches, --jobs 1, a symbol path (each thread would load its own copy of the symbol files) and
symbol servers stay on one thread, since a thread costs about 0.15 s of CPU to start.
--threads N asks for N (0: none); the records are the same either way. A thread that dies on a
dump (or runs past --timeout, when given) is replaced; the dump is tried again alone and, ending its thread
twice, quarantined.

Examples:
  cdb-harness analyze examples/dumps --engine builtin
      triage the example dumps without a debugger; prints buckets and where the report is
  cdb-harness analyze big-batch/ --engine builtin --threads 0
      every dump on the main thread (the least CPU; the default thread keeps the peak lower)
  cdb-harness analyze crashes/ --engine cdb --symbols "srv*C:\\symbols*https://msdl.microsoft.com/download/symbols" --jobs 4
      every .dmp, .mdmp and .hdmp under crashes/, four cdb processes at once (-y works too)
  cdb-harness analyze crashes/ --engine builtin --symbols "srv*$HOME/symcache*https://symbols.example.com"
      no debugger; names and source lines from PDBs (or Breakpad .sym files) in a symbol store,
      downloaded once into ~/symcache in the store's own layout; the record says which modules
      had no symbols and why
  cdb-harness analyze "crashes/**/app-*.dmp" --timeout 5m --out triage --json > summary.json
      a glob (quote it), 5 minutes per dump, summary JSON on stdout
  cdb-harness analyze C:\\ProgramData\\Microsoft\\Windows\\WER --ext dump --engine builtin
      Windows Error Reporting folders; --ext adds an extension to the folder scan
  cdb-harness analyze -z crash.dmp --engine winedbg --record transcripts
      cdb's -z spelling; one raw debugger transcript per dump in transcripts/
  cdb-harness analyze crashes/ --out triage --resume
      continue an interrupted run: dumps already in triage/records.ndjson (same path, size and
      sha256) are skipped; a copy of one under another name is analysed
  cdb-harness analyze crashes/ --shard 1/3 --out part1     (and 2/3, 3/3 on other machines)
  cdb-harness analyze --merge part1 part2 part3 --out all  one summary and report for all shards
  cdb-harness analyze --rebucket triage --signature-lists my-lists
      recompute buckets from stored records with more signature lists, no dump reopened
  cdb-harness analyze crashes/ --queue redis://queue.example:6379 --out triage
      enqueue every dump for \`cdb-harness worker\`s of any engine and collect their records
  cdb-harness analyze crashes/ --queue redis://queue.example:6379 --engine cdb,builtin --out triage
      only cdb and builtin workers take these dumps (not winedbg); see docs/queue.md

Exit codes: 0 every dump analysed, 4 some failed or were quarantined, 1 all failed,
2 usage error, 3 the requested debugger was not found, 130 interrupted (records kept).`;

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `--engine`: one engine word, `any`, or a comma list of engines (the last two for --queue). */
function checkEngineOption(value: string): string {
  const words = value.split(',').map((w) => w.trim());
  if (words.every((w) => ENGINE_WORDS.includes(w) || w === 'any')) return value;
  throw new InvalidArgumentError(
    `Allowed: ${ENGINE_WORDS.join(', ')}, any, or a comma list such as cdb,builtin.`,
  );
}

export function registerAnalyze(context: CommandContext): void {
  // cdb's -c and -i (procdump-habits.ts): -i is --image-path, -c is refused naming --script.
  const command = new ProcDumpStyleCommand('analyze', ['-c', '-i'])
    .description(
      'Batch-analyse dumps (files, folders, globs): exception, stacks, CLR exception, heap summary, buckets.',
    )
    .argument(
      '[paths...]',
      `dump files, folders (searched recursively for ${DUMP_EXTENSIONS.map((e) => `*${e}`).join(', ')}) or globs`,
    )
    .option('-z <dump>', 'a dump file, like a PATH operand (cdb -z; repeatable)', collect)
    .addOption(
      new Option(
        '--engine <engine>',
        `which engine analyses the dumps: auto, ${[...DIALECT_NAMES, 'builtin'].join(', ')}; with --queue also any (its default) or a list: cdb,builtin`,
      )
        .argParser(checkEngineOption)
        .default('auto'),
    )
    .option('--script <file>', 'debugger command script (default dbgscripts/triage.<engine>.txt)')
    .addOption(
      countOption(
        '--jobs <n>',
        'dumps analysed in parallel (default: CPU cores; builtin: 4 x cores)',
      ),
    )
    .addOption(
      countOption(
        '--threads <n>',
        `builtin engine: analyze threads besides the main one (default: one per core, at most 8, for ${MIN_DUMPS_FOR_THREADS} dumps or more without symbol files, else 0; 0: none)`,
      ),
    )
    .addOption(
      durationOption(
        '--timeout <duration>',
        `per-dump deadline for the debugger: 90, 30s, 5m (default ${DEFAULT_TIMEOUT_MS / 1000}s)`,
      ),
    )
    .option(
      '--ext <ext>',
      `also take files ending in EXT when searching folders (repeatable; always: ${DUMP_EXTENSIONS.join(' ')})`,
      collect,
    );
  addOutOption(command, 'output folder (default ./cdb-harness-out/analyze-<yyMMdd_HHmmss>)');
  addJsonOption(command, 'print the summary JSON on stdout (progress and messages go to stderr)');
  addCyborgOption(command, 'the summary JSON');
  addDebuggerOption(command);
  addSymbolOptions(command);
  addSymbolLimitOptions(command);
  command
    .option(
      '--resume',
      'skip dumps already recorded in --out (same path, size and sha256; a copy elsewhere is analysed)',
    )
    .option(
      '--image-path <dir>',
      'builtin engine: a folder of module images (.exe/.dll; flat or NAME/TIMESTAMPSIZE/NAME; repeatable)',
      collect,
    );
  addWinePrefixOption(command);
  command
    .option(
      '--shard <i/n>',
      'analyse only shard I of N (split by sha256, 1-based); auto: from a Kubernetes, Slurm or AWS Batch array index',
    )
    .option('--merge <dirs...>', 'merge analyze output folders (shards) into --out')
    .option('--rebucket <outdir>', 'recompute buckets of an output folder from its records');
  addSigningOptions(command);
  addRecordOption(command);
  command
    .option(
      '--queue <url>',
      'enqueue the dumps on this Redis (redis://HOST:PORT[/DB]) for `cdb-harness worker`s and collect their records',
    )
    .option('--queue-name <name>', 'queue name shared with the workers (default cdb-harness)')
    .option(
      '--watch-folder',
      'with --queue: keep enqueuing new dumps that appear in the folders, and dumps that change after they were taken (taken once size and mtime hold for one poll, 2 s; Ctrl-C ends)',
    )
    .addOption(
      sizeOption(
        '--max-dump-size <size>',
        'larger dumps get a failed record at once, unread (default 64GB)',
      ),
    )
    .option(
      '--reanalyze',
      'with --queue: analyse every dump again, even those whose result is still in Redis',
    )
    .option(
      '--retry-failed',
      'with --queue: analyse again the dumps whose result in Redis is a failure',
    )
    .option('--no-progress', 'no progress output')
    .addHelpText('after', HELP)
    .action(async (paths: string[], options: AnalyzeCliOptions) => {
      const sink = await openJsonSink(options);
      try {
        context.setExitCode(await runAnalyze([...paths, ...(options.z ?? [])], options, sink));
      } finally {
        await sink.close();
      }
    });
  attach(context.program, command);
}
