// The two ends of a live .NET run in tiers (issue 32), for run-heap-trend.ts: the start (the
// counters session over the diagnostics channel, then the tiered sampler; without counters the
// run goes on with a gcdump every sample, and says why) and the end (retention from the last
// gcdump's graph, and the report's `tiers`).
import { join } from 'node:path';
import { shortErrorMessage } from '../../errors.js';
import type {
  HeapTrendReport,
  HeapTrendSample,
  RetentionEntry,
} from '../../report/heap-trend/types.js';
import { startClrCounters } from './clr-counters.js';
import { flaggedTypes, graphRetention, tiersOf } from './clr-tiers-end.js';
import {
  createClrTiersSampler,
  type ClrCountersFeed,
  type ClrTiersSampler,
} from './clr-tiers-sampler.js';
import type { HeapTrendOptions } from './run-heap-trend.js';

/** A gcdump every this many samples unless --types-every says otherwise. */
export const DEFAULT_TYPES_EVERY = 5;

export async function startClrTiersSampler(
  options: HeapTrendOptions,
  warnings: string[],
): Promise<ClrTiersSampler> {
  let counters: ClrCountersFeed | undefined = options.counters;
  if (counters === undefined) {
    try {
      counters = await startClrCounters({
        pid: options.pid,
        intervalMs: options.intervalMs,
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      if (options.signal?.aborted === true) throw error;
      warnings.push(
        `counters: ${shortErrorMessage(error)}; the sizes come from a gcdump every sample instead`,
      );
    }
  }
  return createClrTiersSampler({
    pid: options.pid,
    dir: join(options.outDir, 'gcdumps'),
    typesEvery: options.typesEvery ?? DEFAULT_TYPES_EVERY,
    ...(options.samples === undefined ? {} : { samples: options.samples }),
    ...(counters === undefined ? {} : { counters }),
    ...(options.keepDumps === undefined ? {} : { keepDumps: options.keepDumps }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.debuggerPath === undefined ? {} : { toolPath: options.debuggerPath }),
    ...(options.commandTimeoutMs === undefined
      ? {}
      : { commandTimeoutMs: options.commandTimeoutMs }),
    ...(options.isTargetAlive === undefined ? {} : { isTargetAlive: options.isTargetAlive }),
  });
}

/** Retention from the last gcdump's graph, and which tier gave what. */
export function tiersEnd(
  options: HeapTrendOptions,
  sampler: ClrTiersSampler,
  samples: readonly HeapTrendSample[],
): { retention?: RetentionEntry[]; tiers: NonNullable<HeapTrendReport['tiers']> } {
  const limit = options.retentionTypes ?? 3;
  const snapshots = sampler.snapshots();
  const last = snapshots.last ?? snapshots.first;
  const retention =
    limit <= 0 || last === undefined
      ? undefined
      : graphRetention(flaggedTypes(samples, limit, options.rule), snapshots);
  const typesEvery = options.typesEvery ?? DEFAULT_TYPES_EVERY;
  return {
    ...(retention === undefined ? {} : { retention }),
    tiers: tiersOf(samples, typesEvery, retention === undefined ? undefined : last?.file),
  };
}
