// ProcDump's -t: a dump when the process is about to end. Needs a debugger that stops the process
// on its way out with its memory still readable (Dialect.exitEvent): cdb attaches invasively
// (`-pd`: ending the session detaches, never kills), arms the exit stops, lets the process run and
// passes every exception on; at the exit stop it writes the dump and detaches, and the process
// finishes exiting. A debugger that cannot (winedbg) is refused before anything attaches.
import { DebuggerSession } from '../../engine/debugger-session.js';
import { getDialect, type DialectName } from '../../engine/dialects/index.js';
import type { ExitEventRules } from '../../engine/dialects/types.js';
import {
  AbortedError,
  errorMessage,
  IoError,
  isHarnessError,
  TargetError,
  UsageError,
} from '../../errors.js';
import { parseDumpWritten } from '../../parsers/dump-written.js';
import { debuggerLaunchOptions } from '../debugger-options.js';
import type { ProcessInfo } from '../process-lookup.js';
import { fileBytes, reserveDumpFile, setAsidePartial } from './dump-file.js';
import { snapshotDumpName } from './dump-name.js';
import { roundMs, writtenDump, type DumpOptions, type DumpResult } from './dump.js';
import { translateStartError } from './target-errors.js';
import type { Firing } from './trigger-log.js';
import { verifyDump } from './verify-dump.js';

/** The exit rules of the engine, or a UsageError saying why it cannot do -t. */
export function exitRulesOf(engine: DialectName): ExitEventRules {
  const rules = getDialect(engine).exitEvent;
  if (rules === undefined) {
    throw new UsageError(`-t: ${engine} has no way to stop a process at its exit`);
  }
  if ('refused' in rules) throw new UsageError(`-t: ${rules.refused}`);
  return rules;
}

export interface ExitDump {
  firing: Firing;
  result: DumpResult | null;
  /** Why no dump was written at the exit stop (the debugger's words). */
  error?: string;
}

/** Attaches, waits for the exit, dumps, detaches. Ctrl-C detaches and throws AbortedError. */
export async function dumpAtExit(
  proc: ProcessInfo,
  options: Omit<DumpOptions, 'target'>,
  onAttached: () => void,
): Promise<ExitDump> {
  const rules = exitRulesOf(options.engine);
  const kind = options.kind ?? 'full';
  let session: DebuggerSession;
  try {
    session = await DebuggerSession.start({
      dialect: options.engine,
      target: { kind: 'attach', pid: proc.pid },
      startTimeoutMs: options.startTimeoutMs ?? 60_000,
      ...debuggerLaunchOptions(options),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    throw translateStartError(error, proc.pid);
  }
  let firing: Firing | null = null;
  let heldFrom = 0;
  let path: string | null = null;
  let output = '';
  let failure: unknown = null;
  try {
    for (const command of rules.commands) await session.execute(command);
    onAttached();
    for (;;) {
      await session.go();
      const stop = await session.waitForStop(
        options.signal === undefined ? {} : { signal: options.signal },
      );
      if (stop.kind === 'exception') continue; // passed on by the next go (gn)
      heldFrom = stop.atMs;
      let code: number | null = null;
      if (stop.kind === 'breakpoint' && rules.exitCodeCommand !== undefined) {
        code = rules.readExitCode?.((await session.execute(rules.exitCodeCommand)).output) ?? null;
      } else {
        const last = await session.execute(session.dialect.lastEventCommand);
        const exit = rules.readExitEvent(last.output);
        if (exit === undefined) continue; // some other stop: run on
        code = exit.code;
      }
      firing = {
        trigger: 'exit',
        value: code,
        threshold: null,
        unit: 'exit-code',
        heldFor: null,
        reason: `process exiting${code === null ? '' : ` with code ${code} (0x${code.toString(16)})`} (-t)`,
        atMs: stop.atMs,
      };
      break;
    }
    path = await reserveDumpFile(
      options.outDir,
      snapshotDumpName(proc.name, proc.pid, options.now ?? new Date()),
      { overwrite: options.overwrite === true, numbered: true },
    );
    output = (await session.writeDump(path, kind, { timeoutMs: options.dumpTimeoutMs ?? 600_000 }))
      .output;
  } catch (error) {
    failure = error;
  }
  const closed = await session.close();
  const suspendedMs = heldFrom === 0 ? 0 : performance.now() - heldFrom;
  if (firing === null) {
    if (options.signal?.aborted === true) {
      throw new AbortedError('interrupted while waiting for the process to exit');
    }
    if (failure !== null) {
      throw isHarnessError(failure) ? failure : new IoError(errorMessage(failure));
    }
    throw new TargetError('not-found', `the target (pid ${proc.pid}) ended without an exit stop`);
  }
  const written =
    path === null ? null : parseDumpWritten(output, session.dialect.writeDumpCommand(path, kind));
  const bytes = path === null ? 0 : await fileBytes(path);
  if (path === null || failure !== null || written?.success !== true || bytes === 0) {
    if (path !== null) await setAsidePartial(path);
    const why =
      written?.error ?? (failure === null ? 'the dump file is empty' : errorMessage(failure));
    return { firing, result: null, error: `the dump at exit was not written: ${why}` };
  }
  const check = await verifyDump(path, { pid: proc.pid, kind }, { engine: options.engine });
  if (!check.verified && check.kind === undefined) {
    throw new IoError(`the dump at exit does not read back: ${check.problems.join('; ')}`);
  }
  return {
    firing,
    result: {
      ...writtenDump(options.engine, path, bytes, kind, check, proc),
      estimateBytes: null,
      estimateSource: null,
      estimateNote: null,
      writeMs: 0,
      suspendedMs: roundMs(suspendedMs),
      attachMs: roundMs(session.startDurationMs),
      totalMs: roundMs(suspendedMs),
      verified: check.verified,
      problems: check.problems,
      notes: [...check.notes, 'written at the exit stop; the process went on to exit'],
      detached: closed.detached,
      targetAlive: false,
    },
  };
}
