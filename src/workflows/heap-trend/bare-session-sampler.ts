// The committed-memory sampler (Wine, winedbg): one bare debugger, never attached, kept open for the
// whole run; each sample is the dialect's region listing (winedbg `info maps <pid>`: OpenProcess +
// VirtualQueryEx from outside, 22–47 ms here), so the target is never suspended. Regions are grouped and tracked by region-groups.ts.
import { DebuggerSession } from '../../engine/debugger-session.js';
import { getDialect, type DialectName } from '../../engine/dialects/index.js';
import { UsageError } from '../../errors.js';
import { debuggerLaunchOptions } from '../debugger-options.js';
import { categorizeListedRegions } from './memory-categories.js';
import { groupPrivateRegions, RegionIdTracker } from './region-groups.js';
import {
  TargetGoneError,
  type DebuggerCommandFactory,
  type HeapSampler,
  type SampleReading,
} from './sampler.js';

export interface BareSessionSamplerOptions {
  engine: DialectName;
  pid: number;
  env?: NodeJS.ProcessEnv;
  debuggerPath?: string;
  startTimeoutMs?: number;
  commandTimeoutMs?: number;
  signal?: AbortSignal;
  debuggerCommandFor?: DebuggerCommandFactory;
}

const KB = 1024;

export async function createBareSessionSampler(
  options: BareSessionSamplerOptions,
): Promise<HeapSampler> {
  const dialect = getDialect(options.engine);
  const sampling = dialect.heapSampling;
  if (sampling?.style !== 'bare-session') {
    throw new UsageError(`${dialect.name} cannot list a process's memory regions from outside`);
  }
  const command = sampling.command(options.pid);
  const prefix = options.debuggerCommandFor?.({ purpose: 'sample', index: 0 });
  const session = await DebuggerSession.start({
    dialect: options.engine,
    target: { kind: 'none' },
    ...debuggerLaunchOptions({ ...options, debuggerCommandPrefix: prefix }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    startTimeoutMs: options.startTimeoutMs ?? 30_000,
    commandTimeoutMs: options.commandTimeoutMs ?? 15_000,
  });
  const tracker = new RegionIdTracker();
  return {
    engine: options.engine,
    source: sampling.source,
    async sample(_index: number, signal?: AbortSignal): Promise<SampleReading> {
      const result = await session.execute(command, {
        ...(signal === undefined ? {} : { signal }),
      });
      const maps = sampling.readRegions(result.output);
      if (maps.error !== undefined) {
        throw new TargetGoneError(
          `the target (pid ${options.pid}) is gone: ${dialect.name} says "${maps.error}"`,
        );
      }
      const warnings = [...maps.warnings];
      if (!maps.sawHeader) warnings.push('info maps printed no header row');
      const heaps = tracker.assign(groupPrivateRegions(maps.regions)).map(({ id, group }) => ({
        id,
        reservedKb: group.totalBytes / KB,
        committedKb: group.committedBytes / KB,
      }));
      if (heaps.length === 0) {
        // A live Windows process always has private memory (its stacks, its PEB): no rows means
        // the listing is not of a process.
        throw new TargetGoneError(
          `${command} listed no private memory: the target has probably exited`,
        );
      }
      // The same listing, by category (image, mapped, private data): no second query.
      const { categories, totals } = categorizeListedRegions(maps.regions);
      return {
        heaps,
        categories,
        memoryTotals: totals,
        suspendedMs: 0,
        suspendedHow: 'never',
        warnings,
      };
    },
    async close(): Promise<void> {
      await session.close().catch(() => session.kill());
    },
  };
}
