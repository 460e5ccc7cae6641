// The one family of typed errors every layer throws. A message always names what was being done
// (the debugger command, the file) and, where a debugger was talking, carries its last output lines,
// because "timed out" alone tells a user nothing about what the debugger was doing.
import { systemErrorLine, systemErrorOf, systemReason } from './system-errors.js';

/** Stable machine-readable error codes: they appear in JSON output and in exit-code mapping. */
export type HarnessErrorCode =
  | 'TIMEOUT'
  | 'ABORTED'
  | 'DEBUGGER_EXITED'
  | 'DEBUGGER_NOT_FOUND'
  | 'COMMAND_FAILED'
  | 'OUTPUT_LIMIT'
  | 'UNSAFE_ARGUMENT'
  | 'USAGE'
  | 'TARGET'
  | 'BAD_DUMP'
  | 'BAD_SYMBOLS'
  | 'IO'
  /** The job queue (Redis) cannot be reached, refuses us, or is not Redis. */
  | 'QUEUE'
  /** An optional npm package the feature needs is not installed (the queue's bullmq, ioredis). */
  | 'MISSING_PACKAGE'
  /** Anything that is not one of the harness's own errors (a bug, or a library's error). */
  | 'INTERNAL';

/** How many trailing output lines an error keeps by default. */
export const LAST_LINES = 20;

export interface HarnessErrorOptions {
  /** The debugger command in flight, if any. */
  command?: string | undefined;
  /** The last lines the debugger printed (already VT-stripped). */
  lastOutput?: readonly string[] | undefined;
  cause?: unknown;
}

const brand = Symbol.for('cdb-harness.error');

export class HarnessError extends Error {
  readonly code: HarnessErrorCode;
  readonly command: string | undefined;
  readonly lastOutput: readonly string[];
  /** The message without the appended command and output block. */
  readonly shortMessage: string;

  constructor(code: HarnessErrorCode, message: string, options: HarnessErrorOptions = {}) {
    const lastOutput = (options.lastOutput ?? []).slice(-LAST_LINES);
    super(formatMessage(message, options.command, lastOutput), { cause: options.cause });
    this.code = code;
    this.command = options.command;
    this.lastOutput = lastOutput;
    this.shortMessage = message;
    Object.defineProperty(this, brand, { value: true });
  }

  override get name(): string {
    return this.constructor.name;
  }

  /** A plain object for JSON records: `{code, message, command?, lastOutput?}`. */
  toJSON(): { code: HarnessErrorCode; message: string; command?: string; lastOutput?: string[] } {
    return {
      code: this.code,
      message: this.shortMessage,
      ...(this.command === undefined ? {} : { command: this.command }),
      ...(this.lastOutput.length === 0 ? {} : { lastOutput: [...this.lastOutput] }),
    };
  }
}

function formatMessage(
  message: string,
  command: string | undefined,
  lastOutput: readonly string[],
) {
  let text = message;
  if (command !== undefined) text += `\nCommand: ${command}`;
  if (lastOutput.length > 0) {
    text += `\nLast ${lastOutput.length} output line(s):\n${lastOutput.map((l) => `  | ${l}`).join('\n')}`;
  }
  return text;
}

/** Works across module copies, unlike `instanceof`. */
export function isHarnessError(error: unknown): error is HarnessError {
  return typeof error === 'object' && error !== null && brand in error;
}

export class TimeoutError extends HarnessError {
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number, options: HarnessErrorOptions = {}) {
    super('TIMEOUT', message, options);
    this.timeoutMs = timeoutMs;
  }
}

export class AbortedError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions = {}) {
    super('ABORTED', message, options);
  }
}

export class DebuggerExitedError extends HarnessError {
  readonly exitCode: number | null;
  readonly signal: number | null;
  constructor(
    message: string,
    exit: { exitCode: number | null; signal: number | null },
    options: HarnessErrorOptions = {},
  ) {
    super('DEBUGGER_EXITED', message, options);
    this.exitCode = exit.exitCode;
    this.signal = exit.signal;
  }
}

export class DebuggerNotFoundError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions = {}) {
    super('DEBUGGER_NOT_FOUND', message, options);
  }
}

/**
 * A debugger engine (cdb, winedbg) was asked for but node-pty, the optional dependency that gives
 * it a terminal, is not installed or its native part does not load. Exit code 3 like a missing
 * debugger: the builtin engine, `inspect` and `parse` still work.
 */
export class NodePtyMissingError extends DebuggerNotFoundError {}

/** The debugger answered, but with an error the caller cannot go on from. */
export class CommandFailedError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions = {}) {
    super('COMMAND_FAILED', message, options);
  }
}

export class OutputLimitError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions = {}) {
    super('OUTPUT_LIMIT', message, options);
  }
}

/** A path or text that cannot be passed to a debugger command line safely. */
export class UnsafeArgumentError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions = {}) {
    super('UNSAFE_ARGUMENT', message, options);
  }
}

export class UsageError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions = {}) {
    super('USAGE', message, options);
  }
}

/** The target process is missing, protected, already debugged, of the wrong bitness… */
export class TargetError extends HarnessError {
  readonly reason: string;
  constructor(reason: string, message: string, options: HarnessErrorOptions = {}) {
    super('TARGET', message, options);
    this.reason = reason;
  }
}

/** A file that is not a readable minidump (empty, truncated, not MDMP, absurd counts). */
export class BadDumpError extends HarnessError {
  readonly file: string;
  constructor(file: string, message: string, options: HarnessErrorOptions = {}) {
    super('BAD_DUMP', message, options);
    this.file = file;
  }
}

export class IoError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions = {}) {
    super('IO', message, options);
  }
}

/** The job queue's Redis: unreachable, wrong password, not Redis (`analyze --queue`, `worker`). */
export class QueueError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions = {}) {
    super('QUEUE', message, options);
  }
}

/**
 * An optional npm package a feature needs is not installed (the job queue's bullmq and ioredis):
 * exit code 3, like a missing debugger; everything else still runs.
 */
export class MissingPackageError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions = {}) {
    super('MISSING_PACKAGE', message, options);
  }
}

/** A symbol file (PDB, Breakpad .sym, CAB) that cannot be read: truncated, absurd, cyclic. */
export class BadSymbolsError extends HarnessError {
  readonly file: string;
  constructor(file: string, message: string, options: HarnessErrorOptions = {}) {
    super('BAD_SYMBOLS', message, options);
    this.file = file;
  }
}

/** A broken promise inside the harness itself (a bug, not bad input): never the user's doing. */
export class InternalError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions = {}) {
    super('INTERNAL', message, options);
  }
}

/**
 * The message of anything thrown: an Error's message, otherwise its string form; a failed system
 * call as one line that names the path and the cause (`cannot open x/y.dmp: a part of the path
 * is a file, not a folder (ENOTDIR)`, system-errors.ts), never Node's raw text.
 */
export function errorMessage(error: unknown): string {
  const system = systemErrorOf(error);
  if (system !== null) return systemErrorLine(system);
  return error instanceof Error ? error.message : String(error);
}

/**
 * Why something failed, for a message that names the path itself (`cannot read ${file}: …`):
 * a system call's cause in words (`it is a folder, not a file (EISDIR)`), else errorMessage().
 */
export function failureCause(error: unknown): string {
  const system = systemErrorOf(error);
  return system === null ? errorMessage(error) : systemReason(system);
}

/**
 * One line for a note or a record: a HarnessError's message without the appended command and
 * output block, any other Error's message, or the string form of anything else.
 */
export function shortErrorMessage(error: unknown): string {
  return isHarnessError(error) ? error.shortMessage : errorMessage(error);
}

export interface ErrorJSON {
  code: HarnessErrorCode;
  message: string;
  command?: string;
  lastOutput?: string[];
}

/**
 * Anything thrown as a plain object for JSON records: a HarnessError's own code (with the command
 * and the debugger's last lines unless `brief`), `IO` for a failed system call (a file, a folder,
 * too many open files), `INTERNAL` for anything else.
 */
export function errorToJSON(error: unknown, options: { brief?: boolean } = {}): ErrorJSON {
  if (!isHarnessError(error)) {
    const code = systemErrorOf(error) === null ? 'INTERNAL' : 'IO';
    return { code, message: errorMessage(error) };
  }
  if (options.brief === true) return { code: error.code, message: error.shortMessage };
  return error.toJSON();
}
