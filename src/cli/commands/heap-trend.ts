// `cdb-harness heap-trend` (issue #7): sample a live process's heaps over time, rank the heaps
// that grow, flag sustained growth, dump at commit thresholds, and write report.json/md/html.
// This file declares the command (its options and help); heap-trend-options.ts turns the command
// line into the workflow's options, heap-trend-run.ts runs it.
import type { CommandContext } from '../command-context.js';
import {
  addDebuggerOption,
  addJsonOption,
  addLiveEngineOption,
  addOutOption,
  addSymbolOptions,
  addTargetOptions,
  attach,
  countOption,
  durationOption,
  ProcDumpStyleCommand,
  sizeOption,
  sizesOption,
} from '../options.js';
import { DEFAULT_INTERVAL, type HeapTrendCliOptions } from './heap-trend-options.js';
import { addCyborgOption, openJsonSink } from '../cyborg.js';
import { runHeapTrendCli } from './heap-trend-run.js';

export {
  heapTrendOptionsFromCli,
  type HeapTrendCliOptions,
  type HeapTrendPlan,
} from './heap-trend-options.js';
export { runHeapTrendCli } from './heap-trend-run.js';

export function registerHeapTrend(context: CommandContext): void {
  const command = new ProcDumpStyleCommand('heap-trend', ['-accepteula', '-w', '-pn'])
    .description(
      'Sample the heaps of a live process over time, rank the ones that grow, flag sustained growth (leak suspects), dump at commit thresholds.',
    )
    .argument('[target]', 'the process: a decimal PID or an image name (as -p / --name)');
  addTargetOptions(command, { wait: true });
  command
    .addOption(
      durationOption(
        '--interval <duration>',
        `time between samples: 500ms, 5s, 1m (default ${DEFAULT_INTERVAL})`,
      ),
    )
    .addOption(countOption('--samples <n>', 'stop after N samples'))
    .addOption(
      durationOption(
        '--duration <duration>',
        'stop after this long: 10m, 2h (default: until Ctrl-C)',
      ),
    );
  addLiveEngineOption(
    command,
    '; cdb: per heap (Windows), winedbg: committed memory, dotnet-dump: .NET generations and types (Linux)',
  );
  command
    .option(
      '--clr',
      'add the .NET series: per GC generation and per type, with what holds the growing types (--engine dotnet-dump)',
    )
    .option(
      '--keep-dumps',
      '--clr: keep every sample dump in OUT/dumps (default: deleted once read)',
    )
    .addOption(
      countOption(
        '--types-every <n>',
        '--clr (Linux): per-type counts from a dotnet-gcdump snapshot every N samples, plus the first and last (default 5); sizes come from the runtime counters every sample',
      ),
    )
    .option(
      '--dump-per-sample',
      '--clr (Linux): the old way, a heap dump (dotnet-dump collect --type Heap) read by SOS every sample: slower, stops the target for seconds',
    )
    .option(
      '--from-gcdumps <paths...>',
      'build the report from .gcdump files (dotnet-gcdump collect, dotnet-monitor): per-type series and what holds the growing types, no tool needed',
    )
    .option(
      '--from-dumps <paths...>',
      'build the report from dumps already written (files or folders): ProcDump -m steps, dump -m, dotnet-dump collect',
    )
    .addOption(
      countOption(
        '--retention <n>',
        '--clr: trace what holds the first N growing types (!dumpheap -mt -short + !gcroot; default 3, 0: none)',
      ),
    )
    .addOption(
      durationOption(
        '--retention-budget <duration>',
        '--clr: time the retention step may take: 2m, 10m (default 60s); past it the dump is kept',
      ),
    );
  addOutOption(command, 'output folder (default ./cdb-harness-out/heap-trend-<yyMMdd_HHmmss>)');
  command
    .addOption(
      sizesOption(
        '--dump-at <sizes>',
        'write a dump when the total commit crosses each size: 100MB,200MB (ProcDump -m)',
      ),
    )
    .option('--umdh', 'Windows: also take umdh snapshots (needs +ust, see `cdb-harness gflags`)')
    .addOption(
      countOption(
        '--umdh-every <n>',
        'umdh snapshot every N samples, plus the first and the end (default 5)',
      ),
    )
    .option('--umdh-skip-check', 'do not ask gflags whether +ust is on')
    .addOption(sizeOption('--limit <size>', 'project when the total commit reaches this size: 2GB'))
    .addOption(
      sizeOption(
        '--min-growth <size>',
        'a suspect must grow at least this much in total (default 256KB)',
      ),
    );
  addJsonOption(command, 'print report.json on stdout instead of the summary');
  addCyborgOption(command, 'report.json');
  addDebuggerOption(command);
  addSymbolOptions(command, 'symbol path for cdb; also _NT_SYMBOL_PATH for umdh');
  command
    .addHelpText(
      'after',
      `
What it replaces. By hand you would, every few seconds:
  cdb -pv -p 1234 -c "!heap -s -h 0; q" > sample-07.txt   (noninvasive: suspends the target meanwhile)
then copy the Commit column of every heap into a spreadsheet, chart it, guess which heap
really grows; take "umdh -p:1234 -f:snapN.log" now and then and diff two at a time with
"umdh snap1.log snap2.log"; and run "procdump -m 500 1234" for a dump at 500 MB.
heap-trend does all of it in one run and writes:
  OUT/samples.ndjson   one line per sample, appended as it is taken (safe to tail)
  OUT/report.json      per heap: first/last KB, growth, least-squares slope (KB/min), R²,
                       share of intervals that grew, suspect flag, ranking, the rule in words
  OUT/report.md, OUT/report.html   the same, with a chart per heap and a stacked total
  OUT/dumps/           --dump-at dumps, each read back and checked
  OUT/umdh/            --umdh snapshot logs; their N-way trend is in the report

--from-dumps FILE...|DIR builds the same report from dumps already written, each at its own time:
Windows full dumps give memory by category (image, mapped, heap, stack, private data) with no
debugger, and the managed heap apart when dotnet-dump can read the dump (on Windows); Linux cores
of .NET processes (dotnet-dump collect) give the .NET series through dotnet-dump. A missing or
unreadable dump is skipped with a warning; the series goes on.

Engines:
  dotnet-dump  (.NET on Linux, --clr) three tiers, each at its own cost: the sizes (GC generations,
           LOH, POH, committed, working set, allocation rate, GC count and pause) from the
           runtime's own counters every sample (the target is never stopped for them); the types
           from a "dotnet-gcdump collect" snapshot every --types-every samples (one induced GC;
           first and last always); and, once at the end, what holds the growing types, from the
           last snapshot's object graph. OUT/gcdumps keeps the first and last snapshot (open them
           in PerfView or Visual Studio). --dump-per-sample is the old way: each sample is
           "dotnet-dump collect --type Heap" (the target is stopped while it is written), then
           "dotnet-dump analyze" reads "eeheap -gc" and "dumpheap -stat", and "gcroot" at the end.
           The tools are found on PATH, in ~/.dotnet/tools, as local tools, or at --debugger;
           install them with "dotnet tool install -g dotnet-gcdump" (and dotnet-dump).
  cdb      each sample is a short noninvasive attach (-pv) running "!heap -s -h 0" and
           "!address -summary" (memory by category), then exit; the target is suspended for that
           attach and every sample records for how long. With --clr the same attach loads SOS
           ("!eeheap -gc", "!dumpheap -stat -live"; the GC's bytes become the managed heap
           category), and one more attach at the end traces what holds the growing types.
  winedbg  (Wine/Linux) "info maps <pid>" from a winedbg that never attaches: the target is never
           suspended. This is a COMMITTED-MEMORY view (contiguous private regions), not a
           per-heap one; the report says so.

A heap is a leak suspect only when its growth is sustained: slope above 1 KB/min AND R² ≥ 0.8
AND growth in ≥ 70 % of the intervals AND ≥ 256 KB in total (--min-growth). Ctrl-C stops the run
early and still writes the report from the samples taken (exit 130).

Exit codes: 0 done, no leak suspected, 1 failure (debugger error), 2 bad arguments, 3 no debugger
(umdh/gflags: Windows only), 5 the target is missing or exited during the run (the report covers
the samples before), 6 done and a leak is suspected (the report's verdict), 130 interrupted.

Target: a PID or NAME operand (heap-trend 1234, as dump takes it), -p/--pid, --name (-pn), or
-w NAME (also ProcDump's NAME -w): wait for the process to start.

Examples:
  cdb-harness heap-trend 1234 --interval 10s --samples 30
  cdb-harness heap-trend --name w3wp --interval 30s --duration 2h --dump-at 1GB,1.5GB --limit 2GB
  cdb-harness heap-trend -p 1234 --interval 5s --samples 60 --umdh --out C:\\traces\\svc -y C:\\symbols
  cdb-harness heap-trend --pid 4242 --engine winedbg --interval 500ms --samples 20 --json
  cdb-harness heap-trend --pid 31337 --clr --engine dotnet-dump --interval 1s --samples 8
  cdb-harness heap-trend --from-dumps ./procdump-steps/   (the dumps' own times; what grew?)
  cdb-harness heap-trend --from-gcdumps ./gcdumps/         (dotnet-gcdump files: types and their roots)`,
    )
    .action(async (target: string | undefined, cli: HeapTrendCliOptions) => {
      const sink = await openJsonSink(cli);
      try {
        context.setExitCode(await runHeapTrendCli(cli, target, sink));
      } finally {
        await sink.close();
      }
    });
  attach(context.program, command);
}
