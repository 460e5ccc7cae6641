// `analyze … --queue redis://…`: the local options turned into a queued run (producer and
// collector, src/queue/queue-analyze.ts). Options that belong to the machine that analyses (the
// debugger, symbols, images, parallelism, transcripts) are the workers' and are refused here
// with a pointer to `cdb-harness worker`, so nobody believes they reached the workers.
import { UsageError } from '../../errors.js';
import { analyzeThroughQueue } from '../../queue/queue-analyze.js';
import { checkQueueName, DEFAULT_QUEUE_NAME, engineSet } from '../../queue/queue-job.js';
import { parseRedisUrl } from '../../queue/redis-url.js';
import type { AnalyzeOptions, AnalyzeResult } from '../../workflows/analyze/analyze.js';

export interface QueueCliOptions {
  /** `--engine` as given: one engine, a comma list, `any`, or `auto` (= any). */
  engine: string;
  queue?: string;
  queueName?: string;
  watchFolder?: boolean;
  reanalyze?: boolean;
  retryFailed?: boolean;
}

export async function analyzeQueued(
  local: AnalyzeOptions,
  cli: QueueCliOptions,
): Promise<AnalyzeResult> {
  const target = parseRedisUrl(cli.queue ?? '');
  // Omitted (auto) means any engine: whichever worker is free takes the dump.
  const engines = engineSet(cli.engine);
  const workerSide: [unknown, string][] = [
    [local.jobs, '--jobs'],
    [local.symbolPath, '--symbols'],
    [local.debuggerPath, '--debugger'],
    [local.imagePaths, '--image-path'],
    [local.winePrefix, '--wine-prefix'],
    [local.recordDir, '--record'],
    [local.shard, '--shard'],
  ];
  const misplaced = workerSide.filter(([value]) => value !== undefined).map(([, name]) => name);
  if (misplaced.length > 0) {
    throw new UsageError(
      `${misplaced.join(', ')} belong${misplaced.length === 1 ? 's' : ''} to the workers with --queue: give ${misplaced.length === 1 ? 'it' : 'them'} to \`cdb-harness worker\``,
    );
  }
  return analyzeThroughQueue({
    inputs: local.inputs,
    outDir: local.outDir,
    target,
    queueName: checkQueueName(cli.queueName ?? DEFAULT_QUEUE_NAME),
    engines,
    ...(local.scriptPath === undefined ? {} : { scriptPath: local.scriptPath }),
    ...(local.timeoutMs === undefined ? {} : { timeoutMs: local.timeoutMs }),
    ...(local.skipModules === undefined ? {} : { skipModules: local.skipModules }),
    ...(local.signatureLists === undefined ? {} : { signatureLists: local.signatureLists }),
    ...(local.resume === true ? { resume: true } : {}),
    ...(local.extensions === undefined ? {} : { extensions: local.extensions }),
    ...(cli.watchFolder === true ? { watchFolder: true } : {}),
    ...(cli.reanalyze === true
      ? { fresh: 'all' as const }
      : cli.retryFailed === true
        ? { fresh: 'failed' as const }
        : {}),
    ...(local.signal === undefined ? {} : { signal: local.signal }),
    ...(local.onEvent === undefined ? {} : { onEvent: local.onEvent }),
  });
}
