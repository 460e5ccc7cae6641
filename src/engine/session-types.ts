// The shapes a DebuggerSession is configured with and answers with.
import type { DialectName } from './dialects/index.js';
import type { Dialect, SessionTarget } from './dialects/types.js';

export interface SessionOptions {
  /** A registered dialect's name, or a Dialect object (a debugger the registry does not list). */
  dialect: DialectName | Dialect;
  target: SessionTarget;
  /** Default: the dialect's own binary discovery (cdb: CDB_PATH and the SDK folders). */
  debuggerPath?: string;
  /** Run `file args… <dialect args>` instead of debuggerPath (e.g. the cdb emulator). */
  debuggerCommandPrefix?: { file: string; args: readonly string[] };
  symbolPath?: string;
  /** Extra debugger command-line arguments, before the target. */
  extraArgs?: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  startTimeoutMs?: number;
  commandTimeoutMs?: number;
  /** Soft caps keep the head and count the rest; past the hard caps a command is stopped. */
  outputLimits?: {
    maxBytes?: number;
    maxLines?: number;
    hardMaxBytes?: number;
    hardMaxLines?: number;
  };
  /** JSON-lines transcript of every raw chunk in and out. */
  recordPath?: string;
  /** Abort → safe end (detach), then AbortedError for every waiting call. */
  signal?: AbortSignal;
  /**
   * How interrupt() breaks into a live target: `debug-break` DebugBreakProcess on the target
   * (native/break-in) with Ctrl-C as the fallback, `ctrl-c` the console's Ctrl-C only, `auto`
   * (default) the host's way: debug-break on Windows, ctrl-c beside Wine.
   */
  breakIn?: 'auto' | 'debug-break' | 'ctrl-c';
  /** Pty width (default very wide). */
  cols?: number;
}

export interface CommandResult {
  command: string;
  output: string;
  lines: string[];
  durationMs: number;
  truncated: boolean;
  /** Lines and characters counted but not kept because of the output caps. */
  droppedLines?: number;
  droppedBytes?: number;
}

export interface SessionEnd {
  detached: boolean;
  exitCode: number | null;
  forced: boolean;
  output: string;
  /** The target exited while the session was ending (a stop or a message said so). */
  targetExited: boolean;
}

export interface ExecuteOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  maxBytes?: number;
  maxLines?: number;
  hardMaxBytes?: number;
  hardMaxLines?: number;
}

/**
 * 'stopped': the debugger reads commands; 'running': after a go command the debugger reads
 * nothing until the next stop, so no marker is sent and everything up to the next prompt is stop
 * or application output; 'exited': the debugger process ended.
 */
export type SessionState = 'stopped' | 'running' | 'exited';
