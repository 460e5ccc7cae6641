// Which processes run under a name, and which single one a user meant. How processes are listed is
// the dialect's business (Windows `tasklist`, Wine's `winedbg --command "info process"`).
// `watch --name`, `dump --name` and `heap-trend --name` all resolve their target here, so an
// ambiguous name fails the same way everywhere: a TargetError listing every candidate.
import { DIALECT_NAMES, getDialect, type DialectName } from '../engine/dialects/index.js';
import type { ProcessInfo } from '../engine/dialects/types.js';
import { TargetError } from '../errors.js';
import { parseTasklistCsv } from '../engine/dialects/cdb/process-list.js';
import { isWindowsHost } from '../platform/index.js';
import { winePrefixOf } from '../platform/wine/prefix.js';
import {
  parseWinedbgInfoProcess,
  type WinedbgProcessRow,
} from '../engine/dialects/winedbg/process-list.js';

// Kept importable from here, where they lived before the dialect folders owned them.
export { parseTasklistCsv, parseWinedbgInfoProcess, type ProcessInfo, type WinedbgProcessRow };

export type LookupEngine = DialectName;

export interface LookupOptions {
  engine: LookupEngine;
  env?: NodeJS.ProcessEnv;
  /** The debugger the workflow runs: a dialect that lists processes itself asks this one. */
  debuggerPath?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Replaces the system listing (tests, and the cdb emulator which has no tasklist). */
  list?: () => Promise<readonly ProcessInfo[]>;
}

/**
 * The lookup a workflow's own options call for: the debugger it runs is the winedbg to ask. The
 * signal is left to each caller, which adds it to the lookups it lets the user cancel.
 */
export function lookupOptionsFor(from: {
  engine: LookupEngine;
  env?: NodeJS.ProcessEnv | undefined;
  debuggerPath?: string | undefined;
  list?: LookupOptions['list'] | undefined;
}): LookupOptions {
  return {
    engine: from.engine,
    ...(from.env === undefined ? {} : { env: from.env }),
    ...(from.debuggerPath === undefined ? {} : { debuggerPath: from.debuggerPath }),
    ...(from.list === undefined ? {} : { list: from.list }),
  };
}

/** Every process the engine's platform can see, in listing order (the dialect knows how). */
export async function listProcesses(options: LookupOptions): Promise<ProcessInfo[]> {
  if (options.list !== undefined) return [...(await options.list())];
  return getDialect(options.engine).listProcesses({
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.debuggerPath === undefined ? {} : { debuggerPath: options.debuggerPath }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}

/** `w3wp`, `w3wp.exe` and `W3WP.EXE` all name `w3wp.exe` (Windows names are case-insensitive). */
export function sameImageName(wanted: string, listed: string): boolean {
  const norm = (s: string) =>
    s
      .trim()
      .toLowerCase()
      .replace(/\.exe$/, '');
  return norm(wanted) === norm(listed);
}

/** Processes whose image name matches `name` (with or without `.exe`, any case). */
export async function findProcesses(name: string, options: LookupOptions): Promise<ProcessInfo[]> {
  const all = await listProcesses(options);
  return all.filter((p) => sameImageName(name, p.name));
}

export interface ProcessSelector {
  pid?: number;
  name?: string;
}

/** Where the listing looked, on a Linux host: the Wine prefix (one of possibly several). */
function listedWhere(options: LookupOptions): string {
  if (isWindowsHost() || !getDialect(options.engine).abilities.windowsTargets) return '';
  return ` in the Wine prefix ${winePrefixOf(options.env ?? process.env)}`;
}

function describe(p: ProcessInfo): string {
  return `${p.name} (pid ${p.pid})`;
}

/**
 * The one process a user meant: by pid (checked to exist) or by a name that must match exactly one
 * process. Otherwise a TargetError: `not-found` or `ambiguous` (the message lists every candidate
 * so the user can re-run with --pid).
 */
export async function resolveProcess(
  selector: ProcessSelector,
  options: LookupOptions,
): Promise<ProcessInfo> {
  if ((selector.pid === undefined) === (selector.name === undefined)) {
    throw new TargetError('usage', 'give exactly one of a pid or a process name');
  }
  const all = await listProcesses(options);
  if (selector.pid !== undefined) {
    const found = all.find((p) => p.pid === selector.pid);
    if (found === undefined) {
      throw new TargetError(
        'not-found',
        `no process with pid ${selector.pid} is running${getDialect(options.engine).abilities.windowsTargets ? `${listedWhere(options)} (pids are decimal; winedbg lists them in hex)` : ` that ${options.engine} can see (\`${options.engine} ps\` lists them)`}`,
      );
    }
    return found;
  }
  const name = selector.name ?? '';
  const matches = all.filter((p) => sameImageName(name, p.name));
  const [only, ...more] = matches;
  if (only === undefined) {
    throw new TargetError(
      'not-found',
      `no process named ${name} is running${listedWhere(options)}`,
    );
  }
  if (more.length > 0) {
    throw new TargetError(
      'ambiguous',
      `${matches.length} processes are named ${name}; choose one with --pid:\n` +
        matches.map((p) => `  ${describe(p)}`).join('\n'),
    );
  }
  return only;
}

/**
 * `--engine` default: the first debugger in the registry that can be found (cdb: CDB_PATH, the
 * SDK folders), otherwise the last one (winedbg, whose absence the start reports clearly).
 */
export function defaultEngine(env: NodeJS.ProcessEnv = process.env): LookupEngine {
  const general = DIALECT_NAMES.filter((name) => getDialect(name).abilities.windowsTargets);
  const found = general.find((name) => getDialect(name).findBinary(env) !== undefined);
  return found ?? general[general.length - 1] ?? 'winedbg';
}
