// The trigger side of `cdb-harness dump` (issue #21): ProcDump's -c/-cl/-u, -m/-ml lists and
// --commit-step, -t, -h and -p/-pl as options, the combinations refused before anything runs, and
// the summary --json prints for a triggered run (schemas/dumpTriggerSummary.schema.json).
// ProcDump's options: https://learn.microsoft.com/sysinternals/downloads/procdump; the -m list
// form is ProcDump for Linux's (https://github.com/Sysinternals/ProcDump-for-Linux).
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { parseDuration, parsePercent, parseSizeKb, parseSizeList } from '../../units.js';
import type { DumpResult } from '../../workflows/dump/dump.js';
import type { CounterTrigger } from '../../workflows/dump/counter-trigger.js';
import { DEFAULT_HUNG_AFTER_MS } from '../../workflows/dump/hung-trigger.js';
import {
  DEFAULT_SERIES_INTERVAL_MS,
  type DumpSeriesEvent,
  type DumpSeriesOptions,
} from '../../workflows/dump/dump-series.js';
import type { TriggerEventLine } from '../../workflows/dump/trigger-log.js';
import { TRIGGER_LOG_NAME } from '../../workflows/dump/trigger-log.js';
import { durationOption, percentOption, sizeOption, sizesOption } from '../options.js';
import { join } from 'node:path';
import { currentPlatform, isWindowsHost } from '../../platform/index.js';

export interface TriggerCliOptions {
  count?: string;
  wait?: string;
  commitAbove?: string;
  commitBelow?: string;
  commitStep?: string;
  cpuAbove?: string;
  cpuBelow?: string;
  perCore?: boolean;
  onExit?: boolean;
  hungWindow?: boolean;
  hungAfter?: string;
  counter?: string;
  counterAbove?: string;
  counterBelow?: string;
}

type SeriesOptions = Omit<DumpSeriesOptions, 'signal' | 'onEvent'>;

export function addTriggerOptions(command: Command): void {
  command
    .addOption(
      sizesOption(
        '-m, --commit-above <sizes>',
        'wait until the commit is at or above SIZE, then dump: 500 (MB), 1.5GB; a list 27,47,67 writes one dump at each (ProcDump -m)',
      ),
    )
    .addOption(
      sizesOption(
        '--commit-below <sizes>',
        'wait until the commit is below SIZE, then dump; a list as for -m (ProcDump -ml)',
      ),
    )
    .addOption(
      sizeOption(
        '--commit-step <size>',
        'one dump each time the commit has grown by another SIZE since the start (with -ml: shrunk); -n caps the count',
      ),
    )
    .addOption(
      percentOption(
        '-c, --cpu-above <percent>',
        'dump when CPU usage stays at or above PERCENT for -s seconds (ProcDump -c; default -s 10)',
      ),
    )
    .addOption(
      percentOption(
        '--cpu-below <percent>',
        'dump when CPU usage stays below PERCENT for -s seconds (ProcDump -cl)',
      ),
    )
    .option('-u, --per-core', 'CPU percent of one core rather than of all cores (ProcDump -u)')
    .option('-t, --on-exit', 'dump when the process is about to exit (ProcDump -t; cdb only)')
    .option(
      '--hung-window',
      'dump when a top-level window has not answered for --hung-after (ProcDump -h; Windows or Wine, see below)',
    )
    .addOption(
      durationOption(
        '--hung-after <duration>',
        'how long a window must not answer for -h (default 5s, ProcDump fixed value)',
      ),
    )
    .option(
      '--counter <counter>',
      'performance counter path for -p/-pl: "\\Processor(_Total)\\% Processor Time" (Windows PDH)',
    )
    .option(
      '--counter-above <value>',
      'dump when --counter stays at or above VALUE for -s seconds (ProcDump -p PATH VALUE; Windows, typeperf)',
    )
    .option(
      '--counter-below <value>',
      'dump when --counter stays below VALUE for -s seconds (ProcDump -pl PATH VALUE; Windows, typeperf)',
    );
}

/** The trigger options onto the workflow's (after refuseTriggerCombinations). */
export function applyTriggerOptions(cli: TriggerCliOptions, options: SeriesOptions): void {
  const threshold = cli.commitAbove ?? cli.commitBelow;
  const direction = cli.commitBelow !== undefined ? 'below' : 'above';
  if (threshold !== undefined) {
    const flag = direction === 'above' ? '-m' : '-ml';
    const sizes = parseSizeList(threshold, flag).map((kb) => kb * 1024);
    // Crossed in order: rising thresholds for -m, falling ones for -ml.
    if (direction === 'below') sizes.reverse();
    const [first] = sizes;
    options.trigger = { direction, thresholdBytes: first ?? 0 };
    if (sizes.length > 1) {
      if (cli.count !== undefined) {
        throw new UsageError(
          `${flag} with a list writes one dump per threshold (ProcDump for Linux's -m list form): -n does not combine with it`,
        );
      }
      options.trigger.steps = sizes;
      delete options.count;
    }
  }
  if (cli.commitStep !== undefined) {
    const stepBytes = parseSizeKb(cli.commitStep, '--commit-step') * 1024;
    options.trigger = { direction, thresholdBytes: stepBytes, stepBytes };
    if (cli.count === undefined) delete options.count;
  }
  const cpu = cli.cpuAbove ?? cli.cpuBelow;
  if (cpu !== undefined) {
    const flag = cli.cpuAbove !== undefined ? '-c' : '-cl';
    options.cpu = {
      direction: cli.cpuAbove !== undefined ? 'above' : 'below',
      percent: parsePercent(cpu, flag),
      perCore: cli.perCore === true,
      // ProcDump's -s: with a CPU trigger, the seconds the condition must hold (default 10).
      holdMs: options.intervalMs ?? DEFAULT_SERIES_INTERVAL_MS,
    };
  }
  if (cli.onExit === true) options.onExit = true;
  if (cli.hungWindow === true) {
    options.hung = {
      hungAfterMs:
        cli.hungAfter === undefined
          ? DEFAULT_HUNG_AFTER_MS
          : parseDuration(cli.hungAfter, '--hung-after'),
    };
    if (options.hung.hungAfterMs <= 0) throw new UsageError('--hung-after must be above 0');
    refuseHungWindowHost();
  }
  if (
    cli.counter !== undefined ||
    cli.counterAbove !== undefined ||
    cli.counterBelow !== undefined
  ) {
    options.counter = counterTrigger(cli, options.intervalMs ?? DEFAULT_SERIES_INTERVAL_MS);
  }
}

/** Combinations ProcDump refuses, and ours: refused before anything runs. */
export function refuseTriggerCombinations(cli: TriggerCliOptions): void {
  if (cli.cpuAbove !== undefined && cli.cpuBelow !== undefined)
    throw new UsageError('-c/--cpu-above and -cl/--cpu-below exclude each other');
  if (cli.perCore === true && cli.cpuAbove === undefined && cli.cpuBelow === undefined)
    throw new UsageError('-u/--per-core qualifies a CPU threshold: give it with -c or -cl');
  if (cli.counterAbove !== undefined && cli.counterBelow !== undefined)
    throw new UsageError('-p and -pl (--counter-above, --counter-below) exclude each other');
  if (cli.hungAfter !== undefined && cli.hungWindow !== true)
    throw new UsageError('--hung-after sets the -h (--hung-window) timeout: give it with -h');
  if (
    cli.commitStep !== undefined &&
    cli.commitAbove !== undefined &&
    cli.commitBelow !== undefined
  )
    throw new UsageError('--commit-step takes its direction from -m or -ml, not both');
  const triggers = [
    cli.commitAbove !== undefined || cli.commitBelow !== undefined || cli.commitStep !== undefined
      ? '-m/-ml/--commit-step'
      : null,
    cli.cpuAbove !== undefined || cli.cpuBelow !== undefined ? '-c/-cl' : null,
    cli.onExit === true ? '-t' : null,
    cli.hungWindow === true ? '-h' : null,
    cli.counter !== undefined || cli.counterAbove !== undefined || cli.counterBelow !== undefined
      ? '-p/-pl'
      : null,
  ].filter((t): t is string => t !== null);
  if (triggers.length > 1) {
    throw new UsageError(
      `one trigger at a time: ${triggers.join(' and ')} were given (run one dump command per trigger)`,
    );
  }
  if (cli.onExit === true && cli.count !== undefined && cli.count.trim() !== '1')
    throw new UsageError(
      '-t writes the one dump a process can have at its exit: -n does not combine with it',
    );
}

/** -h where no Windows code can run beside the target (not Windows, not Wine on Linux). */
function refuseHungWindowHost(): void {
  if (isWindowsHost() || currentPlatform() === 'linux') return;
  throw new UsageError(
    `-h (--hung-window) asks the target's top-level windows whether they answer (SendMessageTimeout), through Windows code beside the target: Windows, or Wine on Linux; this host (${currentPlatform()}) is neither. Nothing was run`,
  );
}

// \Processor(_Total)\% Processor Time    \Process(w3wp)\Private Bytes    \HOST\Memory\Available MBytes
const COUNTER_PATH_RE = /^\\(?:\\[^\\]+\\)?[^\\]+\\[^\\]+$/;

/** -p/-pl: Windows performance counters (PDH, read through typeperf); refused elsewhere. */
function counterTrigger(cli: TriggerCliOptions, holdMs: number): CounterTrigger {
  const value = cli.counterAbove ?? cli.counterBelow;
  const flag = cli.counterBelow !== undefined ? '-pl' : '-p';
  if (cli.counter === undefined || value === undefined)
    throw new UsageError(
      `${flag} takes a counter path and a threshold: ${flag} "\\Processor(_Total)\\% Processor Time" 80`,
    );
  if (!COUNTER_PATH_RE.test(cli.counter))
    throw new UsageError(
      `${flag}: ${JSON.stringify(cli.counter)} is not a counter path (\\Object(Instance)\\Counter)`,
    );
  if (!Number.isFinite(Number(value)) || value.trim() === '')
    throw new UsageError(`${flag}: the threshold must be a number, got ${JSON.stringify(value)}`);
  if (isWindowsHost()) {
    return {
      path: cli.counter,
      direction: cli.counterBelow !== undefined ? 'below' : 'above',
      threshold: Number(value),
      // ProcDump's -s: the seconds the condition must hold (default 10), as for -c.
      holdMs,
    };
  }
  throw new UsageError(
    `${flag}: performance counters are Windows' PDH; this host (${currentPlatform()}) has none, and Wine has no typeperf.exe and only a few system counters in its pdh.dll, so ${JSON.stringify(cli.counter)} cannot be read here. Nothing was run`,
  );
}

/** Whether a run has a trigger (its --json is then the summary). */
export function hasTrigger(options: SeriesOptions): boolean {
  return (
    options.trigger !== undefined ||
    options.cpu !== undefined ||
    options.onExit === true ||
    options.hung !== undefined ||
    options.counter !== undefined
  );
}

export interface DumpTriggerSummary {
  schemaVersion: 1;
  engine: string;
  pid: number | null;
  processName: string | null;
  /** The trigger as typed in ProcDump's words (`-c 50 -u -s 2`). */
  trigger: string;
  triggersLog: string;
  /** Every line written to triggers.ndjson, in order. */
  events: TriggerEventLine[];
  dumps: DumpResult[];
  endReason: 'done' | 'target-exited' | 'interrupted' | 'error';
  error?: string;
}

/** Collects a triggered run's events into its summary. */
export class TriggerSummary {
  private readonly summary: DumpTriggerSummary;

  constructor(options: SeriesOptions, argv: readonly string[]) {
    this.summary = {
      schemaVersion: 1,
      engine: options.engine,
      pid: null,
      processName: null,
      trigger: argv.join(' '),
      triggersLog: join(options.outDir, TRIGGER_LOG_NAME),
      events: [],
      dumps: [],
      endReason: 'done',
    };
  }

  onEvent(event: DumpSeriesEvent): void {
    if (event.type === 'resolved') {
      this.summary.pid = event.pid;
      this.summary.processName = event.name;
    }
    if (event.type === 'fired') this.summary.events.push(event.line);
    if (event.type === 'trigger-event') this.summary.events.push(event.line);
    if (event.type === 'dumped') this.summary.dumps.push(event.result);
    if (event.type === 'ended')
      this.summary.endReason = event.reason === 'target-exited' ? 'target-exited' : 'done';
  }

  end(reason: DumpTriggerSummary['endReason'], error?: string): DumpTriggerSummary {
    if (reason !== 'done') this.summary.endReason = reason;
    if (error !== undefined) this.summary.error = error;
    return this.summary;
  }
}

/** The trigger flags of a command line, for the summary (`-c 50 -u -s 2`). */
export function triggerWords(cli: TriggerCliOptions & { interval?: string }): string[] {
  const words: string[] = [];
  const add = (flag: string, value?: string | boolean) => {
    if (value === undefined || value === false) return;
    words.push(flag);
    if (typeof value === 'string') words.push(value);
  };
  add('-m', cli.commitAbove);
  add('-ml', cli.commitBelow);
  add('--commit-step', cli.commitStep);
  add('-c', cli.cpuAbove);
  add('-cl', cli.cpuBelow);
  add('-u', cli.perCore);
  add('-t', cli.onExit);
  add('-h', cli.hungWindow);
  add('--hung-after', cli.hungAfter);
  add(cli.counterBelow !== undefined ? '-pl' : '-p', cli.counter);
  if (cli.counter !== undefined) words.push(cli.counterAbove ?? cli.counterBelow ?? '');
  add('-n', cli.count);
  add('-s', cli.interval);
  return words;
}
