// `--engine auto`: cdb when it can be found (it is the real thing), else the builtin reader
// (always there); winedbg only when asked for. The reason is returned so the
// CLI can say what it chose and why.
import { DIALECT_NAMES, getDialect } from '../../engine/dialects/index.js';
import { assertDebuggerFile } from '../../engine/launch.js';
import { UsageError } from '../../errors.js';
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
  // A tool of Linux core dumps (dotnet-dump) triages them in batch runs, without a pty; one that
  // reads neither Windows dumps nor cores would fail on each dump, and is refused before any.
  const cores = request !== 'auto' && getDialect(request).coreDumps !== undefined;
  if (request !== 'auto' && !cores && !getDialect(request).abilities.windowsTargets) {
    throw new UsageError(`--engine ${request}: analyze cannot triage dumps with ${request}`);
  }
  // A debugger engine needs node-pty: say so before the batch starts, not once per dump.
  if (request !== 'auto' && !cores) loadNodePty();
  else if (request === 'auto' && !nodePtyAvailable()) {
    return {
      engine: 'builtin',
      reason:
        'auto: node-pty (which the debugger engines need) is not installed; reading dumps directly',
    };
  }
  if (request !== 'auto') {
    const dialect = getDialect(request);
    if (given?.hasCommandPrefix === true)
      return { engine: request, reason: 'asked for, debugger given' };
    if (given?.debuggerPath !== undefined) {
      assertDebuggerFile(request, given.debuggerPath, env);
      return { engine: request, reason: 'asked for, debugger given' };
    }
    // A debugger that must be searched for (cdb) is found now, so a missing one is reported
    // before any dump is read; one that is run by name from PATH (winedbg) is left to the start.
    const path = dialect.locateBinary(env);
    return path === dialect.name
      ? { engine: request, reason: 'asked for' }
      : { engine: request, reason: 'asked for', debuggerPath: path };
  }
  // Auto: the registry's order is the preference (cdb, the real thing, first). A debugger is
  // worth a process per dump only when it adds what the builtin reader lacks: a crash analysis
  // (cdb's !analyze -v). winedbg adds none and ignores --symbols, so off Windows the builtin
  // reader is the better default; winedbg runs when asked for (--engine winedbg).
  const missing: string[] = [];
  for (const name of DIALECT_NAMES) {
    // Only a debugger of Windows dumps can triage them (dotnet-dump reads .NET dumps only).
    const abilities = getDialect(name).abilities;
    if (!abilities.windowsTargets || !abilities.crashAnalysis) continue;
    const path = getDialect(name).findBinary(env);
    if (path === undefined) {
      missing.push(name);
      continue;
    }
    return missing.length === 0
      ? { engine: name, reason: `auto: found ${path}`, debuggerPath: path }
      : { engine: name, reason: `auto: ${missing.join(', ')} not found, using ${path}` };
  }
  return {
    engine: 'builtin',
    reason: `auto: ${missing.join(', ') || 'no crash-analysing debugger'} not found; reading dumps directly (other debuggers only when asked for with --engine)`,
  };
}

/**
 * A debugger that takes no symbol path (winedbg) would drop `--symbols` without a word: the
 * warning that says so, or undefined.
 */
export function symbolPathWarning(
  choice: EngineChoice,
  symbolPath: string | undefined,
): string | undefined {
  if (symbolPath === undefined || choice.engine === 'builtin') return undefined;
  if (getDialect(choice.engine).abilities.symbolPath) return undefined;
  return `${choice.engine} takes no symbol path: --symbols changes nothing with it (it reads the PDBs beside the images); --engine builtin names frames from the symbol path`;
}
