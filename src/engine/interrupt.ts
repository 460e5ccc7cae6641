// Breaking into a running target, and the one rule that keeps a live target alive while doing
// so: never send Ctrl-C while the debugger is printing a stop. winedbg answers a Ctrl-C that
// arrives in the middle of a stop report by exiting, and an attached winedbg takes its target with
// it (seen on this project's Wine rig; the end-to-end tests in test/e2e/ run into it without this
// rule). Both interrupt() and ending a session go through here; no workflow repeats the rule.
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

export interface BreakInContext {
  reader: StopReader;
  /** performance.now() when the go command was written. */
  goWrittenAt: number;
  timeoutMs: number;
  /** The dialect's ctrlCMidStopEndsDebugger: a stop report that has begun is never interrupted. */
  patientWithStops: boolean;
  /** Called once, just before the first Ctrl-C: the stop that follows is a break-in. */
  beforeCtrlC(): void;
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

/** Sends Ctrl-C unless a stop arrives first, and resolves when the stop's prompt has come. */
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
  context.beforeCtrlC();
  context.write('\x03');
  // A break sent too early can be lost; send a second one half-way if no stop came.
  const retry = setTimeout(() => {
    if (!reader.finished) context.write('\x03');
  }, timeoutMs / 2);
  try {
    await waitWithDeadline(reader.done, {
      timeoutMs,
      onTimeout: () =>
        new TimeoutError(
          `The debugger did not break in within ${timeoutMs} ms of Ctrl-C.`,
          timeoutMs,
          { command: '<Ctrl-C>', lastOutput: context.lastOutput() },
        ),
      onAbort: () => new AbortedError('Interrupt aborted.'),
    });
  } finally {
    clearTimeout(retry);
  }
}
