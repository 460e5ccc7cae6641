// Command scripts for `analyze --script FILE`: one debugger command per line, `$$` and `#`
// comment lines, and an optional `?COND` guard so one script serves every kind of dump
// (dbgscripts/triage.cdb.txt explains the conditions). The harness decides the conditions from
// its own cheap read of the dump, so a mini dump never pays for `!heap -s` and a native dump
// never tries to load SOS.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getDialect, type DialectName } from '../../engine/dialects/index.js';
import { failureCause, UsageError } from '../../errors.js';

export type ScriptCondition = 'exception' | 'full' | 'clr' | 'coreclr' | 'managed';

const CONDITIONS: readonly ScriptCondition[] = ['exception', 'full', 'clr', 'coreclr', 'managed'];

export interface ScriptStep {
  command: string;
  when?: ScriptCondition;
  /** 1-based line in the script, for error messages. */
  line: number;
}

export interface DumpFacts {
  exception: boolean;
  full: boolean;
  clr: boolean;
  coreclr: boolean;
}

/**
 * Parses a script. Sample lines:
 *   `$$ comment`, `# comment`, `kn 50`, `?full !heap -s`
 */
export function parseTriageScript(text: string, where = 'script'): ScriptStep[] {
  const steps: ScriptStep[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('$$') || line.startsWith('#')) return;
    // `?full !heap -s` → condition `full`, command `!heap -s`
    const guard = /^\?([a-z]+)\s+(\S.*)$/.exec(line);
    if (guard) {
      const name = guard[1] as ScriptCondition;
      if (!CONDITIONS.includes(name)) {
        throw new UsageError(
          `${where}:${index + 1}: unknown condition "?${guard[1]}" (known: ${CONDITIONS.join(', ')})`,
        );
      }
      steps.push({ command: guard[2]!.trim(), when: name, line: index + 1 });
      return;
    }
    if (line.startsWith('?')) {
      throw new UsageError(`${where}:${index + 1}: a "?COND" guard needs a command after it`);
    }
    steps.push({ command: line, line: index + 1 });
  });
  if (steps.length === 0) throw new UsageError(`${where}: the script has no commands`);
  return steps;
}

export function loadTriageScript(path: string): ScriptStep[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read script ${path}: ${failureCause(error)}`);
  }
  return parseTriageScript(text, path);
}

/** dbgscripts/ at the package root, from src/ (tsx) and from dist/src/ (built). */
export function defaultScriptPath(dialect: DialectName): string {
  const script = getDialect(dialect).triageScript;
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [resolve(here, '..', '..', '..'), resolve(here, '..', '..', '..', '..')];
  const root = candidates.find((dir) => {
    try {
      readFileSync(join(dir, 'dbgscripts', script));
      return true;
    } catch {
      return false;
    }
  });
  return join(root ?? candidates[0]!, 'dbgscripts', script);
}

/** True when the step should run, given the dump's facts and whether SOS loaded. */
export function stepApplies(step: ScriptStep, facts: DumpFacts, sosLoaded: boolean): boolean {
  switch (step.when) {
    case undefined:
      return true;
    case 'managed':
      return (facts.clr || facts.coreclr) && sosLoaded;
    default:
      return facts[step.when];
  }
}
