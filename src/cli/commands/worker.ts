// `cdb-harness worker --queue redis://…`: takes `analyze --queue` jobs for one engine and runs the
// local per-dump analysis on them until stopped. Ctrl-C / SIGTERM: the dumps in flight finish and
// it exits 0; a second one abandons them (their jobs go back to the queue) and exits 130. Prints a
// line per dump on stderr, or with --json one JSON line per event on stdout (for supervisors).
import { Option } from 'commander';
import { DIALECT_NAMES } from '../../engine/dialects/index.js';
import { checkQueueName, DEFAULT_QUEUE_NAME } from '../../queue/queue-job.js';
import { requireQueuePackages } from '../../queue/queue-packages.js';
import { DEFAULT_MAX_DOWNLOAD_BYTES } from '../../queue/url-dump.js';
import type { WorkerEvent } from '../../queue/worker.js';
import type { EngineRequest } from '../../workflows/analyze/engine-choice.js';
import { parseCount, parseDuration, parseSizeKb } from '../../units.js';
import type { CommandContext } from '../command-context.js';
import { ExitCode } from '../exit-codes.js';
import {
  addDebuggerOption,
  addJsonOption,
  addOutOption,
  addSymbolOptions,
  countOption,
  durationOption,
  sizeOption,
  symbolPathOf,
  addWinePrefixOption,
  winePrefixOf,
} from '../options.js';
import { escapeControls } from '../../report/terminal-text.js';

interface WorkerCliOptions {
  queue: string;
  queueName?: string;
  engine: EngineRequest;
  jobs?: string;
  symbols?: string;
  symbolPath?: string;
  imagePath?: string[];
  winePrefix?: string;
  debugger?: string;
  out?: string;
  json?: boolean;
  lockDuration?: string;
  maxDownload?: string;
  downloadTimeout?: string;
}

const HELP = `
A worker runs one engine and takes the dumps whose jobs allow it: those enqueued for its engine
(NAME-builtin), for a list holding it (\`analyze --engine cdb,builtin\`: NAME-cdb+builtin) and for
any engine (the default of \`analyze --queue\`: NAME-any). Windows machines with cdb and Linux
machines with the builtin engine share one Redis; --jobs is one budget over all those queues.
Each dump is analysed exactly as a local \`analyze\` does (one debugger process per dump, the
job's per-dump timeout, a debugger that dies twice quarantines the dump).
Dumps are read where the producer saw them (local, UNC or NFS paths) or downloaded from their
http(s) URL into a temp folder (checked against the sha256 recorded when enqueued, then deleted).

A worker that dies mid-dump (killed, machine lost) leaves its jobs locked for --lock-duration; then
another worker takes them again. A dump whose workers died twice is quarantined once for the
whole cluster. Ctrl-C or SIGTERM lets the dumps in flight finish; a second one abandons them
(they go back to the queue). See docs/queue.md for Redis settings, services and sizing --jobs.

Examples:
  cdb-harness worker --queue redis://queue.example:6379 --engine builtin --jobs 8
      a Linux worker: builtin engine, eight dumps at once
  cdb-harness worker --queue redis://queue.example:6379/2 --engine cdb --jobs 2 -y "srv*C:\\symbols*https://msdl.microsoft.com/download/symbols"
      a Windows worker on database 2, two cdb processes at once, symbols cached per machine
  cdb-harness worker --queue redis://127.0.0.1:6379 --engine builtin --json > worker.ndjson
      one JSON line per event (ready, job-start, job-done, …) for a supervisor

Exit codes: 0 stopped after finishing its dumps, 1 the queue is unreachable or refused us,
2 usage error, 3 the requested debugger was not found, 130 stopped hard (dumps abandoned).`;

export function registerWorker(context: CommandContext): void {
  const command = context.program
    .command('worker')
    .description(
      'Take `analyze --queue` jobs from Redis and analyse them (the jobs its engine may take).',
    )
    .requiredOption('--queue <url>', 'the Redis to take jobs from: redis://HOST:PORT[/DB]')
    .option(
      '--queue-name <name>',
      `queue name shared with the producer (default ${DEFAULT_QUEUE_NAME})`,
    )
    .addOption(
      new Option(
        '--engine <engine>',
        'the engine this worker runs (auto: cdb, else builtin; winedbg when asked for)',
      )
        .choices(['auto', ...DIALECT_NAMES, 'builtin'])
        .default('auto'),
    )
    .addOption(countOption('--jobs <n>', 'dumps analysed at once (default 1)'))
    .option(
      '--image-path <dir>',
      'builtin engine: a folder of module images (.exe/.dll; repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    );
  addWinePrefixOption(command);
  addDebuggerOption(command);
  addSymbolOptions(command, 'symbol path on this worker, each keeping its own cache');
  addOutOption(command, 'keep the debugger raw outputs here (default: not kept)');
  addJsonOption(command, 'one JSON line per event on stdout');
  command
    .addOption(
      durationOption(
        '--lock-duration <duration>',
        'how long a dead worker holds its jobs before another takes them (default 30s)',
      ),
    )
    .addOption(
      sizeOption(
        '--max-download <size>',
        `largest dump downloaded from a URL: 512MB, 4GB (default ${DEFAULT_MAX_DOWNLOAD_BYTES / 1024 ** 3}GB)`,
      ),
    )
    .addOption(
      durationOption(
        '--download-timeout <duration>',
        'deadline for one URL download (default 10m)',
      ),
    )
    .addHelpText('after', HELP)
    .action(async (options: WorkerCliOptions) => {
      context.setExitCode(await runWorkerCli(options));
    });
}

async function runWorkerCli(options: WorkerCliOptions): Promise<number> {
  // bullmq and ioredis are optional: loaded only here, after saying how to get them if missing,
  // so that `worker --help` and every other command run without them.
  requireQueuePackages();
  const [{ parseRedisUrl }, { runWorker }] = await Promise.all([
    import('../../queue/redis-url.js'),
    import('../../queue/worker.js'),
  ]);
  const target = parseRedisUrl(options.queue);
  const queueName = checkQueueName(options.queueName ?? DEFAULT_QUEUE_NAME);
  const symbolPath = symbolPathOf(options);
  const graceful = new AbortController();
  const hard = new AbortController();
  const onSignal = (name: string) => {
    if (!graceful.signal.aborted) {
      process.stderr.write(
        `\n${name}: finishing the dumps in flight, then exiting (again: abandon them)\n`,
      );
      graceful.abort();
    } else {
      hard.abort();
    }
  };
  const onSigint = () => onSignal('interrupted');
  const onSigterm = () => onSignal('SIGTERM');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  try {
    await runWorker({
      target,
      queueName,
      engine: options.engine,
      ...(options.jobs === undefined ? {} : { jobs: parseCount(options.jobs, '--jobs', 1) }),
      ...(symbolPath === undefined ? {} : { symbolPath }),
      ...(options.imagePath === undefined ? {} : { imagePaths: options.imagePath }),
      ...winePrefixOf(options),
      ...(options.debugger === undefined ? {} : { debuggerPath: options.debugger }),
      ...(options.out === undefined ? {} : { outDir: options.out }),
      ...(options.lockDuration === undefined
        ? {}
        : { lockDurationMs: parseDuration(options.lockDuration, '--lock-duration') }),
      ...(options.maxDownload === undefined
        ? {}
        : { maxDownloadBytes: parseSizeKb(options.maxDownload, '--max-download') * 1024 }),
      ...(options.downloadTimeout === undefined
        ? {}
        : { downloadTimeoutMs: parseDuration(options.downloadTimeout, '--download-timeout') }),
      signal: graceful.signal,
      hard: hard.signal,
      onEvent: (event) => report(event, options.json === true),
    });
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  }
  return hard.signal.aborted ? ExitCode.Interrupted : ExitCode.Ok;
}

function report(event: WorkerEvent, json: boolean): void {
  if (json) {
    const line =
      event.type === 'job-done'
        ? {
            type: event.type,
            jobId: event.jobId,
            location: event.location,
            ms: event.ms,
            ok: event.record.ok,
            ...(event.record.error === undefined ? {} : { error: event.record.error }),
            ...(event.record.quarantined === true ? { quarantined: true } : {}),
            bucket: event.record.bucket?.id ?? null,
          }
        : event;
    process.stdout.write(`${JSON.stringify({ ...line, pid: process.pid })}\n`);
    return;
  }
  switch (event.type) {
    case 'ready':
      process.stderr.write(
        `worker: engine ${event.engine.engine} (${event.engine.reason}), queues ${event.queues.map((q) => `"${q}"`).join(', ')} (Redis ${event.redisVersion}), ${event.jobs} at once\n`,
      );
      return;
    case 'job-start':
      return;
    case 'job-done':
      process.stderr.write(
        `${event.record.ok ? 'ok' : event.record.quarantined === true ? 'quarantined' : 'failed'} ${escapeControls(event.location)} (${event.ms} ms)${event.record.error === undefined ? '' : `: ${escapeControls(event.record.error.message)}`}\n`,
      );
      return;
    case 'job-abandoned':
      process.stderr.write(`abandoned ${escapeControls(event.location)} (back to the queue)\n`);
      return;
    case 'job-failed':
      process.stderr.write(
        `attempt failed on ${escapeControls(event.location)}: ${escapeControls(event.message)}\n`,
      );
      return;
    case 'redis':
      process.stderr.write(`queue: ${event.message}\n`);
      return;
    case 'stopping':
      return;
  }
}
