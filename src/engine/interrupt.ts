// Breaking into a running target, and the one rule that keeps a live target alive while doing
// so: never send Ctrl-C while the debugger is printing a stop. winedbg answers a Ctrl-C that
// arrives in the middle of a stop report by exiting, and an attached winedbg takes its target with
// it (seen on this project's Wine rig; the end-to-end tests in test/e2e/ run into it without this
// rule). Both interrupt() and ending a session go through here; no workflow repeats the rule.
// A live Windows target can also be broken into from outside the debugger (DebugBreakProcess,
// src/platform/common/break-in.ts): where the session asks for it, that comes first and Ctrl-C is
// the fallback when it cannot be done, and the retry when no stop follows it.
import { setTimeout as delay } from 'node:timers/promises';
import { AbortedError, TimeoutError } from '../errors.js';
import { settleAfter, waitWithDeadline } from './deadline.js';
import {
  GO_ACK_MS,
  GO_SETTLE_MS,
  STOP_PRINT_GRACE_MS,
  STOP_PRINT_QUIET_MS,
} from './session-defaults.js';
import type { StopReader } from './stop-reader.js';
import { breakInWithHelper, defaultBreakIn, type BreakInOutcome } from '../platform/index.js';
import type { Dialect, SessionTarget } from './dialects/types.js';
import type { SessionOptions } from './session-types.js';

/** Which way a break-in was sent (a stop's `breakInBy`). */
export type BreakInBy = 'DebugBreakProcess' | 'Ctrl-C';

export interface BreakInContext {
  reader: StopReader;
  /** performance.now() when the go command was written. */
  goWrittenAt: number;
  timeoutMs: number;
  /** The dialect's ctrlCMidStopEndsDebugger: a stop report that has begun is never interrupted. */
  patientWithStops: boolean;
  /** Called just before each break is sent: the stop that follows is a break-in. */
  beforeBreak(by: BreakInBy): void;
  /** Breaks in from outside the debugger (DebugBreakProcess); absent: Ctrl-C only. */
  breakTarget?: () => Promise<BreakInOutcome>;
  /** Told why the break from outside could not be done (Ctrl-C was sent instead). */
  onBreakTargetRefused?: (reason: string) => void;
  write(text: string): void;
  lastOutput(): string[];
}

/**
 * A stop whose report has begun (text beyond the go command's echo) gets up to `ms` to reach its
 * prompt; a stop can go quiet for a while in the middle (symbol loading for its backtrace).
 */
export async function waitForStopReport(reader: StopReader, ms: number): Promise<void> {
  if (reader.finished || !reader.reportStarted) return;
  await settleAfter(reader.done, ms);
}

/**
 * While output flows after the go command's echo, a stop may be printing: wait for its prompt.
 * Output that goes quiet without one (cdb ModLoad lines while the target runs) is no stop, so the
 * wait ends after a short quiet spell, unless the debugger is one that a Ctrl-C in the middle of
 * a stop ends (`patient`): then a report that has begun is waited for through its quiet spells
 * (a busy machine can stall one for longer than the quiet spell).
 */
async function letStopFinishPrinting(
  reader: StopReader,
  budgetMs: number,
  patient: boolean,
): Promise<void> {
  const graceEnd = performance.now() + budgetMs;
  const printing = () =>
    (patient && reader.reportStarted) ||
    (reader.afterAckChars > 0 && performance.now() - reader.lastDataAt < STOP_PRINT_QUIET_MS);
  while (!reader.finished && performance.now() < graceEnd && printing()) {
    await settleAfter(reader.done, 25);
  }
}

/**
 * Breaks in (from outside when the context can, else or failing that Ctrl-C) unless a stop
 * arrives first, and resolves when the stop's prompt has come.
 */
export async function breakIn(context: BreakInContext): Promise<void> {
  const { reader, timeoutMs } = context;
  // A Ctrl-C sent before the debugger has read the go command is lost (mcp-windbg issue #73,
  // https://github.com/svnscha/mcp-windbg/issues/73).
  await settleAfter(reader.ack, Math.min(GO_ACK_MS, timeoutMs));
  const sinceGo = performance.now() - context.goWrittenAt;
  if (sinceGo < GO_SETTLE_MS) await delay(GO_SETTLE_MS - sinceGo);
  await letStopFinishPrinting(
    reader,
    Math.min(STOP_PRINT_GRACE_MS, timeoutMs / 2),
    context.patientWithStops,
  );
  if (reader.finished) {
    await reader.done;
    return;
  }
  const ctrlC = () => {
    context.beforeBreak('Ctrl-C');
    context.write('\x03');
  };
  if (context.breakTarget === undefined) {
    ctrlC();
  } else {
    context.beforeBreak('DebugBreakProcess');
    const outcome = await context.breakTarget();
    if (!outcome.broke) {
      context.onBreakTargetRefused?.(outcome.reason);
      if (!reader.finished) ctrlC();
    }
  }
  // A break sent too early can be lost; send a Ctrl-C half-way if no stop came.
  const retry = setTimeout(() => {
    if (!reader.finished) ctrlC();
  }, timeoutMs / 2);
  try {
    await waitWithDeadline(reader.done, {
      timeoutMs,
      onTimeout: () =>
        new TimeoutError(
          `The debugger did not break in within ${timeoutMs} ms of the break-in (${context.breakTarget === undefined ? 'Ctrl-C' : 'DebugBreakProcess, then Ctrl-C'}).`,
          timeoutMs,
          { command: '<Ctrl-C>', lastOutput: context.lastOutput() },
        ),
      onAbort: () => new AbortedError('Interrupt aborted.'),
    });
  } finally {
    clearTimeout(retry);
  }
}

/**
 * The break from outside for this session's interrupt, or undefined for Ctrl-C alone: only on a
 * debugger of Windows targets, with an invasively attached or launched target whose Windows pid is
 * known (a noninvasive attach has no debug port: a breakpoint there would end the target).
 */
export function outsideBreakIn(
  session: { dialect: Dialect; target: SessionTarget; banner: string },
  options: Pick<SessionOptions, 'breakIn' | 'env'>,
  timeoutMs: number,
): (() => Promise<BreakInOutcome>) | undefined {
  const way =
    options.breakIn === undefined || options.breakIn === 'auto'
      ? defaultBreakIn()
      : options.breakIn;
  if (way === 'ctrl-c' || !session.dialect.abilities.windowsTargets) return undefined;
  const { target } = session;
  const pid =
    target.kind === 'attach' && target.noninvasive !== true
      ? target.pid
      : target.kind === 'launch' || (target.kind === 'attach-name' && target.noninvasive !== true)
        ? session.dialect.launchedPid(session.banner)
        : undefined;
  if (pid === undefined) return undefined;
  const env = options.env ?? process.env;
  return () => breakInWithHelper(pid, { env, deadlineMs: timeoutMs / 2 });
}
