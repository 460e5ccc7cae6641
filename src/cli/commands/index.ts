// Every subcommand, in the order `--help` lists them. Each lives in its own file.
import type { RegisterCommand } from '../command-context.js';
import { registerAnalyze } from './analyze.js';
import { registerDump } from './dump.js';
import { registerGflags } from './gflags.js';
import { registerHeapTrend } from './heap-trend.js';
import { registerInspect } from './inspect.js';
import { registerParse } from './parse.js';
import { registerUmdhDiff } from './umdh-diff.js';
import { registerWatch } from './watch.js';

export const COMMANDS: readonly RegisterCommand[] = [
  registerAnalyze,
  registerWatch,
  registerHeapTrend,
  registerDump,
  registerInspect,
  registerParse,
  registerUmdhDiff,
  registerGflags,
];
