// Which processes run under a name, and which single one a user meant. Windows lists processes with
// `tasklist /fo csv /nh`; under Wine the debugger itself answers (`winedbg --command "info process"`),
// because Linux `ps` shows only the wine loader, never the Windows image name or the Windows pid.
// `watch --name`, `dump --name` and `heap-trend --name` all resolve their target here, so an
// ambiguous name fails the same way everywhere: a TargetError listing every candidate.
import { execa } from 'execa';
import { locateCdb } from '../engine/dialects/locate-cdb.js';
import { TargetError } from '../errors.js';
import { runToFiles } from './run-to-file.js';

export interface ProcessInfo {
  /** Windows process id (decimal number; winedbg prints it as hex, converted here). */
  pid: number;
  /** Image name as the system lists it, e.g. `w3wp.exe`. */
  name: string;
  /** winedbg only: the parent process in the tree it prints. */
  parentPid?: number;
  threads?: number;
  /** tasklist only: the "Mem Usage" column in KB. */
  memKb?: number;
}

export type LookupEngine = 'cdb' | 'winedbg';

export interface LookupOptions {
  engine: LookupEngine;
  env?: NodeJS.ProcessEnv;
  /** The winedbg to ask (engine winedbg); default `winedbg` on PATH. */
  winedbgPath?: string;
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
    ...(from.engine === 'winedbg' && from.debuggerPath !== undefined
      ? { winedbgPath: from.debuggerPath }
      : {}),
    ...(from.list === undefined ? {} : { list: from.list }),
  };
}

const DEFAULT_TIMEOUT_MS = 15_000;

/** Splits one CSV row with quoted fields (`"a,b","c"`); `""` inside quotes is a literal quote. */
function csvFields(line: string): string[] | null {
  const fields: string[] = [];
  let i = 0;
  while (i < line.length) {
    if (line[i] !== '"') return null;
    let value = '';
    i++;
    for (;;) {
      if (i >= line.length) return null;
      const ch = line[i];
      if (ch === '"') {
        if (line[i + 1] === '"') {
          value += '"';
          i += 2;
          continue;
        }
        i++;
        break;
      }
      value += ch;
      i++;
    }
    fields.push(value);
    if (i < line.length) {
      if (line[i] !== ',') return null;
      i++;
    }
  }
  return fields;
}

// A tasklist /fo csv /nh row (real shape, published in several projects' fixtures):
// "explorer.exe","5144","Console","3","938,060 K"
// The memory column holds a comma inside its quotes, hence a CSV reader and not split(',').
// Lines that are not rows (`INFO: No tasks are running which match the specified criteria.`, which
// is localised) are skipped.
const MEM_KB = /^([\d,.\s\u00a0]+)\s*K$/i;

/** Parses `tasklist /fo csv /nh` (a header row, if present, is skipped: its PID is not a number). */
export function parseTasklistCsv(text: string): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    const fields = csvFields(line);
    const name = fields?.[0];
    const pidText = fields?.[1];
    if (name === undefined || pidText === undefined || !/^\d+$/.test(pidText)) continue;
    const info: ProcessInfo = { pid: Number(pidText), name };
    const mem = MEM_KB.exec(fields?.[4] ?? '');
    if (mem?.[1] !== undefined) {
      const kb = Number(mem[1].replace(/[^\d]/g, ''));
      if (Number.isFinite(kb)) info.memKb = kb;
    }
    out.push(info);
  }
  return out;
}

// winedbg --command "info process" (captured on this rig, Wine 8.0):
//  pid      threads  executable (all id:s are in hex)
//  0000013c 1        'start.exe'
// =00000144 1        \_ 'winedbg.exe'
//  00000038 7        'services.exe'
//  000000d8 5        \_ 'rpcss.exe'
// `=` marks the process winedbg runs in (the lister itself). A child is printed as `\_ ` under the
// executable column, three more columns in per level (winedbg info.c), so the depth comes from the
// column where `\_` starts.
const WINEDBG_ROW = /^([ =])([0-9a-f]{8}) +(\d+) +([^']*)'(.*)'\s*$/i;
// ` pid      threads  executable (all id:s are in hex)`
const WINEDBG_HEADER = /^\s*pid\s+threads\s+executable/i;
const TREE_INDENT = 3;

export interface WinedbgProcessRow extends ProcessInfo {
  /** The `=` row: winedbg's own process. */
  current: boolean;
}

/** Parses winedbg `info process`, pids converted from hex; the tree gives parentPid. */
export function parseWinedbgInfoProcess(text: string): WinedbgProcessRow[] {
  const out: WinedbgProcessRow[] = [];
  // stack[depth] = pid of the last row seen at that depth
  const stack: number[] = [];
  let column = 18;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\r$/, '');
    if (WINEDBG_HEADER.test(line)) {
      column = line.indexOf('executable');
      continue;
    }
    const m = WINEDBG_ROW.exec(line);
    if (m === null) continue;
    const [, mark, hexPid, threads, nesting, name] = m;
    if (hexPid === undefined || threads === undefined || name === undefined) continue;
    const at = line.indexOf('\\_');
    const depth =
      (nesting ?? '').includes('\\_') && at >= 0
        ? Math.max(1, Math.round((at - column) / TREE_INDENT) + 1)
        : 0;
    const pid = Number.parseInt(hexPid, 16);
    const row: WinedbgProcessRow = { pid, name, threads: Number(threads), current: mark === '=' };
    const parent = depth > 0 ? stack[depth - 1] : undefined;
    if (parent !== undefined) row.parentPid = parent;
    stack[depth] = pid;
    stack.length = depth + 1;
    out.push(row);
  }
  return out;
}

/** Every process the engine's platform can see, in listing order. */
export async function listProcesses(options: LookupOptions): Promise<ProcessInfo[]> {
  if (options.list !== undefined) return [...(await options.list())];
  const common = {
    env: options.env ?? process.env,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    reject: false,
    ...(options.signal === undefined ? {} : { cancelSignal: options.signal }),
  } as const;
  if (options.engine === 'winedbg') {
    const file = options.winedbgPath ?? 'winedbg';
    // Output through files: a winedbg that boots the prefix would hold pipes open (run-to-file.ts).
    const result = await runToFiles(file, ['--command', 'info process'], {
      env: common.env,
      timeoutMs: common.timeout,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const { stdout, stderr } = result;
    const rows = parseWinedbgInfoProcess(stdout);
    if (rows.length === 0) {
      throw new TargetError(
        'list-failed',
        `could not list processes with ${file} --command "info process" (${result.spawnError ?? (result.timedOut ? 'timed out' : `exit ${String(result.exitCode)}`)})`,
        { lastOutput: `${stdout}\n${stderr}`.split('\n') },
      );
    }
    // The lister's own winedbg is not a candidate for anything.
    return rows.filter((r) => !r.current).map(({ current: _current, ...info }) => info);
  }
  const result = await execa('tasklist', ['/fo', 'csv', '/nh'], { ...common, extendEnv: true });
  if (options.signal?.aborted === true) throw options.signal.reason;
  if (result.exitCode !== 0 || result.failed) {
    throw new TargetError(
      'list-failed',
      `could not list processes with tasklist /fo csv /nh: ${result.shortMessage ?? 'failed'}`,
      { lastOutput: String(result.stderr).split('\n') },
    );
  }
  return parseTasklistCsv(String(result.stdout));
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
        `no process with pid ${selector.pid} is running (pids are decimal; winedbg lists them in hex)`,
      );
    }
    return found;
  }
  const name = selector.name ?? '';
  const matches = all.filter((p) => sameImageName(name, p.name));
  const [only, ...more] = matches;
  if (only === undefined) {
    throw new TargetError('not-found', `no process named ${name} is running`);
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

/** `--engine` default: cdb when it can be found (CDB_PATH, the SDK folders), otherwise winedbg. */
export function defaultEngine(env: NodeJS.ProcessEnv = process.env): LookupEngine {
  try {
    locateCdb(env);
    return 'cdb';
  } catch {
    return 'winedbg';
  }
}
