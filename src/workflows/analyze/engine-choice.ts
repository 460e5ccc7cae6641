// `--engine auto`: cdb when it can be found (it is the real thing), else winedbg when it is on
// PATH (Linux CI, Wine), else the builtin reader (always there). The reason is returned so the
// CLI can say what it chose and why.
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { locateCdb } from '../../engine/dialects/locate-cdb.js';
import { loadNodePty, nodePtyAvailable } from '../../pty/node-pty.js';
import type { AnalyzeEngineName } from '../../report/analyze/analyze-record.js';

export type EngineRequest = AnalyzeEngineName | 'auto';

export interface EngineChoice {
  engine: AnalyzeEngineName;
  reason: string;
  /** cdb only: where it was found. */
  debuggerPath?: string;
}

export function chooseEngine(
  request: EngineRequest,
  env: NodeJS.ProcessEnv = process.env,
  /** A debugger given explicitly (path or command prefix) is used as is, not searched for. */
  given?: { debuggerPath?: string; hasCommandPrefix?: boolean },
): EngineChoice {
  if (request === 'builtin') return { engine: 'builtin', reason: 'asked for' };
  // A debugger engine needs node-pty: say so before the batch starts, not once per dump.
  if (request !== 'auto') loadNodePty();
  else if (!nodePtyAvailable()) {
    return {
      engine: 'builtin',
      reason:
        'auto: node-pty (which the debugger engines need) is not installed; reading dumps directly',
    };
  }
  if (request === 'cdb') {
    if (given?.hasCommandPrefix === true || given?.debuggerPath !== undefined) {
      return { engine: 'cdb', reason: 'asked for (debugger given)' };
    }
    return { engine: 'cdb', reason: 'asked for', debuggerPath: locateCdb(env) };
  }
  if (request === 'winedbg') return { engine: 'winedbg', reason: 'asked for' };
  try {
    const path = locateCdb(env);
    return { engine: 'cdb', reason: `auto: found ${path}`, debuggerPath: path };
  } catch {
    // not installed: try the next engine
  }
  const winedbg = findOnPath('winedbg', env);
  if (winedbg !== undefined) {
    return { engine: 'winedbg', reason: `auto: cdb.exe not found, using ${winedbg}` };
  }
  return {
    engine: 'builtin',
    reason: 'auto: neither cdb.exe nor winedbg found; reading dumps directly',
  };
}

export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env['PATH'] ?? '').split(delimiter).filter((d) => d !== '');
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}
