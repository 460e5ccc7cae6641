// How big a dump of a Wine process will be, asked before attaching so it costs the target nothing:
// a second, bare winedbg lists the target's regions (`winedbg --command "info maps <pid>"`) and
// the committed private bytes are the estimate.
import { runToFiles } from '../common/run-to-file.js';
import type { ProcessListOptions, SizeEstimate } from '../common/types.js';
import { parseWinedbgInfoMaps } from './info-maps.js';
import { winedbgFile } from './binary.js';
import { requireExistingPrefix } from '../../../platform/wine/prefix.js';

const TIMEOUT_MS = 15_000;

export async function estimateFromInfoMaps(
  pid: number,
  options: ProcessListOptions,
): Promise<SizeEstimate> {
  const env = options.env ?? process.env;
  const file = winedbgFile(env, options.debuggerPath);
  requireExistingPrefix(env);
  // Output through files: a winedbg that boots the prefix would hold pipes open (run-to-file.ts).
  const result = await runToFiles(file, ['--command', `info maps ${pid}`], {
    env,
    timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const record = parseWinedbgInfoMaps(result.stdout);
  if (record.error !== undefined) return { bytes: null, note: `info maps: ${record.error}` };
  if (!record.sawHeader) return { bytes: null, note: 'info maps printed no region table' };
  return { bytes: record.committedPrivateBytes };
}
