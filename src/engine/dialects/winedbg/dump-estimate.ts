// How big a dump of a Wine process will be, asked before attaching so it costs the target nothing:
// a second, bare winedbg lists the target's regions (`winedbg --command "info maps <pid>"`) and
// the committed private bytes are the estimate.
import { execa } from 'execa';
import type { ProcessListOptions, SizeEstimate } from '../shared/types.js';
import { parseWinedbgInfoMaps } from './info-maps.js';

const TIMEOUT_MS = 15_000;

export async function estimateFromInfoMaps(
  pid: number,
  options: ProcessListOptions,
): Promise<SizeEstimate> {
  const file = options.debuggerPath ?? 'winedbg';
  const result = await execa(file, ['--command', `info maps ${pid}`], {
    env: options.env ?? process.env,
    extendEnv: false,
    reject: false,
    timeout: options.timeoutMs ?? TIMEOUT_MS,
    ...(options.signal === undefined ? {} : { cancelSignal: options.signal }),
  });
  const record = parseWinedbgInfoMaps(String(result.stdout));
  if (record.error !== undefined) return { bytes: null, note: `info maps: ${record.error}` };
  if (!record.sawHeader) return { bytes: null, note: 'info maps printed no region table' };
  return { bytes: record.committedPrivateBytes };
}
