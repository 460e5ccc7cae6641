// One dump in one debugger process: start it on the dump, run the triage script step by step
// (each step's output saved as a raw side file and folded into the record fields), close it.
// Everything shares one deadline, the per-dump timeout: a dump that hangs the debugger is killed
// when it runs out, and the error carries the command and the debugger's last lines.
import { join } from 'node:path';
import { DebuggerSession, type SessionOptions } from '../../engine/debugger-session.js';
import type { DialectName } from '../../engine/dialects/index.js';
import { TimeoutError } from '../../errors.js';
import type { RawOutputRef } from '../../report/analyze/analyze-record.js';
import { debuggerLaunchOptions } from '../debugger-options.js';
import type { BuiltinFields } from './builtin-record.js';
import {
  absorbOutput,
  emptyDebuggerFields,
  missingFields,
  type DebuggerFields,
} from './debugger-fields.js';
import { rawOutputWriter } from './raw-outputs.js';
import { stepApplies, type DumpFacts, type ScriptStep } from './triage-script.js';

export interface DebuggerRunOptions {
  dialect: DialectName;
  dumpPath: string;
  sha256: string;
  steps: readonly ScriptStep[];
  facts: DumpFacts;
  base: BuiltinFields;
  outDir: string;
  timeoutMs: number;
  signal?: AbortSignal;
  debuggerPath?: string;
  debuggerCommandPrefix?: { file: string; args: readonly string[] };
  symbolPath?: string;
  env?: NodeJS.ProcessEnv;
  recordDir?: string;
}

export interface DebuggerRunResult {
  fields: DebuggerFields;
  rawOutputs: RawOutputRef[];
  commands: { command: string; ms: number }[];
  /** Time spent waiting on the debugger: start-up, commands, close. */
  debuggerMs: number;
}

export async function runDebuggerOnDump(options: DebuggerRunOptions): Promise<DebuggerRunResult> {
  const deadline = performance.now() + options.timeoutMs;
  const remaining = () => Math.max(1, Math.round(deadline - performance.now()));
  const sessionOptions: SessionOptions = {
    dialect: options.dialect,
    target: { kind: 'dump', path: options.dumpPath },
    startTimeoutMs: remaining(),
    commandTimeoutMs: remaining(),
    ...debuggerLaunchOptions({
      ...options,
      recordPath:
        options.recordDir === undefined
          ? undefined
          : join(options.recordDir, `${options.sha256.slice(0, 12)}.jsonl`),
    }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const writeRaw = await rawOutputWriter(options.outDir, options.sha256);
  const fields = emptyDebuggerFields(options.base);
  const rawOutputs: RawOutputRef[] = [];
  const commands: { command: string; ms: number }[] = [];
  const startedAt = performance.now();
  const session = await DebuggerSession.start(sessionOptions);
  let debuggerMs = performance.now() - startedAt;
  let closed = false;
  try {
    for (const [index, step] of options.steps.entries()) {
      if (!stepApplies(step, options.facts, fields.sosLoaded)) continue;
      if (deadline - performance.now() <= 0) {
        throw new TimeoutError(
          `the per-dump timeout (${options.timeoutMs} ms) ran out before "${step.command}"`,
          options.timeoutMs,
          { command: step.command, lastOutput: session.lastOutput() },
        );
      }
      const result = await session.execute(step.command, {
        timeoutMs: remaining(),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      debuggerMs += result.durationMs;
      commands.push({ command: step.command, ms: Math.round(result.durationMs) });
      rawOutputs.push(await writeRaw(index, step.command, result.output));
      absorbOutput(fields, { command: step.command, output: result.output }, options.dialect);
    }
    const closeStart = performance.now();
    await session.close({ timeoutMs: Math.min(remaining(), 15_000) });
    debuggerMs += performance.now() - closeStart;
    closed = true;
  } finally {
    // A timeout, a crash or an abort leaves the debugger in an unknown state. A dump is not a
    // live target, so ending the process outright harms nothing.
    if (!closed) await session.kill().catch(() => undefined);
  }
  fields.notAvailable = missingFields(fields, options.dialect);
  return { fields, rawOutputs, commands, debuggerMs };
}
