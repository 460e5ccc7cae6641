// How processes are listed under Wine: Linux `ps` shows only the wine loader, never the Windows
// image name or the Windows pid, so winedbg itself is asked (`winedbg --command "info process"`).
import { TargetError } from '../../../errors.js';
import { runToFiles } from '../common/run-to-file.js';
import type { ProcessInfo, ProcessListOptions } from '../common/types.js';
import { winedbgFile } from './binary.js';
import { requireExistingPrefix } from '../../../platform/wine/prefix.js';

const DEFAULT_TIMEOUT_MS = 15_000;

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

/** Every process winedbg lists, in listing order, the lister's own winedbg left out. */
export async function listWinedbgProcesses(options: ProcessListOptions): Promise<ProcessInfo[]> {
  const env = options.env ?? process.env;
  const file = winedbgFile(env, options.debuggerPath);
  requireExistingPrefix(env);
  // Output through files: a winedbg that boots the prefix would hold pipes open (run-to-file.ts).
  const result = await runToFiles(file, ['--command', 'info process'], {
    env,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
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
