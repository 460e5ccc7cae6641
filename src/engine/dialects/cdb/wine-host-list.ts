// How the cdb dialect lists processes on a host that has no `tasklist`: cdb.exe (or the real
// Debugger Engine behind test/targets/dbgeng-host) running under Wine on Linux. The processes
// it can debug are the Wine prefix's, so they are listed through the same Wine:
//  1. Wine's own `tasklist.exe /fo csv /nh`, read with the Windows parser (newer Wine builds
//     print the Windows rows; Wine 8.0's tasklist.exe is a stub that prints nothing, measured
//     on the Debian 12 rig scripts/setup.sh builds);
//  2. otherwise Wine's debugger, `winedbg --command "info process"`, the listing the winedbg
//     dialect reads (Wine's lister of Windows pids and image names).
// Both run with the workflow's environment: WINEPREFIX must name the prefix the debugger runs in.
import { TargetError } from '../../../errors.js';
import { runToFiles } from '../common/run-to-file.js';
import type { ProcessInfo, ProcessListOptions } from '../common/types.js';
import { listWinedbgProcesses } from '../winedbg/process-list.js';
import { parseTasklistCsv } from './process-list.js';
import { requireExistingPrefix } from '../../../platform/wine/prefix.js';

const DEFAULT_TIMEOUT_MS = 15_000;

/** Prefixes whose tasklist.exe printed no row: not asked again by this process (2 s a call). */
const silentTasklist = new Set<string>();

/** Every Windows process of the Wine prefix in `env`, through Wine's tasklist or winedbg. */
export async function listWineHostProcesses(options: ProcessListOptions): Promise<ProcessInfo[]> {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const key = requireExistingPrefix(env);
  const notes: string[] = [];
  if (!silentTasklist.has(key)) {
    // Files, not pipes: a first Wine call boots the prefix, whose services inherit the handles.
    const run = await runToFiles('wine', ['tasklist.exe', '/fo', 'csv', '/nh'], {
      env,
      timeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const rows = parseTasklistCsv(run.stdout);
    if (rows.length > 0) return rows;
    if (run.spawnError !== undefined) notes.push(`wine tasklist.exe: ${run.spawnError}`);
    else {
      notes.push('wine tasklist.exe printed no process');
      if (!run.timedOut) silentTasklist.add(key);
    }
  }
  try {
    return await listWinedbgProcesses({
      env,
      timeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    if (error instanceof TargetError) {
      throw new TargetError(
        'list-failed',
        `could not list the Wine prefix's processes (${key}): ${[...notes, error.shortMessage].join('; ')}`,
        { lastOutput: error.lastOutput ?? [] },
      );
    }
    throw error;
  }
}
