// The engine's default budgets and limits, in one place. Every wait in the engine has one of
// these as its deadline unless the caller gives its own.
import type { OutputLimits } from './command-output.js';

export const DEFAULT_START_TIMEOUT_MS = 60_000;
export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
export const DEFAULT_DUMP_TIMEOUT_MS = 300_000;
export const DEFAULT_CLOSE_TIMEOUT_MS = 15_000;
export const DEFAULT_INTERRUPT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_LINES = 250_000;

/**
 * A session's output budget per command: what the caller gave, the defaults for the rest, and
 * hard limits (where a command is interrupted) at four times the soft ones unless given.
 */
export function sessionOutputLimits(given: Partial<OutputLimits> = {}): OutputLimits {
  const maxBytes = given.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxLines = given.maxLines ?? DEFAULT_MAX_LINES;
  return {
    maxBytes,
    maxLines,
    hardMaxBytes: given.hardMaxBytes ?? maxBytes * 4,
    hardMaxLines: given.hardMaxLines ?? maxLines * 4,
  };
}
/** How long go() waits for the debugger to show it read the go command (its echo). */
export const GO_ACK_MS = 1000;
/**
 * Minimum time between writing a go command and a Ctrl-C. On a tty in canonical mode the kernel
 * echoes `g` before the debugger has read it, and a SIGINT then flushes the unread line, so the
 * echo alone is no proof the go was read; a short settle closes that window.
 */
export const GO_SETTLE_MS = 30;
/** How long interrupt() lets a stop that is being printed reach its prompt, and what quiet means. */
export const STOP_PRINT_GRACE_MS = 3000;
export const STOP_PRINT_QUIET_MS = 250;
/**
 * How long ending a session waits for the prompt of a stop whose report has begun, before it
 * breaks in. A stop can go quiet for a while in the middle (symbol loading for its backtrace).
 */
export const STOP_REPORT_WAIT_MS = 10_000;
/** After a hard output limit: how long the interrupted command gets to reach its marker. */
export const RECOVERY_MS = 10_000;
/** Stop text beyond this is cut in the middle (head and tail kept: the event is at the end). */
export const MAX_STOP_TEXT = 1024 * 1024;
export const STOP_TEXT_HEAD = 64 * 1024;
export const STOP_TEXT_TAIL = 512 * 1024;
