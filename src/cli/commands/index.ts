// Every subcommand, in the order `--help` lists them. Each lives in its own file, loaded only
// when it is needed: `cdb-harness inspect` must not pay for loading the debugger engine, execa
// or node-pty (start-up time, bench/cli-start.ts), and must work where node-pty is not installed.
import type { RegisterCommand } from '../command-context.js';

export interface CommandEntry {
  /** The subcommand's name as typed (`heap-trend`). */
  name: string;
  load(): Promise<RegisterCommand>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'analyze', load: async () => (await import('./analyze.js')).registerAnalyze },
  { name: 'watch', load: async () => (await import('./watch.js')).registerWatch },
  { name: 'heap-trend', load: async () => (await import('./heap-trend.js')).registerHeapTrend },
  { name: 'dump', load: async () => (await import('./dump.js')).registerDump },
  { name: 'inspect', load: async () => (await import('./inspect.js')).registerInspect },
  { name: 'parse', load: async () => (await import('./parse.js')).registerParse },
  { name: 'umdh-diff', load: async () => (await import('./umdh-diff.js')).registerUmdhDiff },
  { name: 'gflags', load: async () => (await import('./gflags.js')).registerGflags },
  { name: 'worker', load: async () => (await import('./worker.js')).registerWorker },
];
