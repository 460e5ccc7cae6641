// Ending a session without harming a live target: let a command in flight reach its marker, let a
// stop that is being reported reach its prompt, break in if the target still runs, send the
// dialect's end commands (cdb `qd`, winedbg `detach` + `quit`), wait for the debugger to exit, and
// kill its process tree only as the last resort (killing an attached winedbg kills its target).
import { UsageError } from '../errors.js';
import { settleAfter } from './deadline.js';
import type { SessionTarget } from './dialects/types.js';
import { waitForStopReport } from './interrupt.js';
import type { SessionChannel } from './session-channel.js';
import { DEFAULT_INTERRUPT_TIMEOUT_MS, STOP_REPORT_WAIT_MS } from './session-defaults.js';
import type { SessionEnd } from './session-types.js';
import { CommandReader } from './command-reader.js';

export interface EndContext {
  channel: SessionChannel;
  target: SessionTarget;
  /** The session's command queue: settles when the command in flight is done. */
  queue: Promise<unknown>;
  interrupt(timeoutMs: number): Promise<unknown>;
  /** Runs one framed command (e.g. winedbg `detach`) outside the queue. */
  runCommand(command: string, timeoutMs: number): Promise<unknown>;
  /** Drops the session's abort listener. */
  release(): void;
}

export async function endSession(context: EndContext, timeoutMs: number): Promise<SessionEnd> {
  const { channel } = context;
  channel.closing = true;
  const deadline = performance.now() + timeoutMs;
  const remaining = () => Math.max(0, deadline - performance.now());
  const seen: string[] = [];
  const unsubscribe = channel.onOutput((text) => seen.push(text));
  const stopBefore = channel.stop;
  let detached = false;
  let forced = false;
  try {
    if (channel.state !== 'exited') {
      // Let a command in flight finish (bounded): its marker keeps the stream framed.
      await settleAfter(context.queue, remaining() * 0.3);
      const inFlight = channel.reader instanceof CommandReader ? channel.reader : channel.draining;
      if (inFlight && !inFlight.finished) await settleAfter(inFlight.done, remaining() * 0.3);
      const pending = channel.pendingStop;
      if (channel.state === 'running' && pending) {
        await waitForStopReport(pending, Math.min(STOP_REPORT_WAIT_MS, remaining() * 0.5));
      }
      if (channel.state === 'running') {
        await context
          .interrupt(Math.min(DEFAULT_INTERRUPT_TIMEOUT_MS, remaining() * 0.4))
          .catch(() => undefined);
      }
      detached = await sendEndCommands(context, remaining);
    }
    if (channel.state !== 'exited') {
      const exited = await settleAfter(channel.process.exited, remaining()).then(
        () => channel.exitInfo !== null,
      );
      if (!exited) {
        forced = true;
        await channel.process.killTree('SIGTERM');
      }
    }
  } finally {
    unsubscribe();
    context.release();
    channel.failReaders(new UsageError('The debugger session was closed.'));
    await channel.recorder?.close();
  }
  const output = seen.join('');
  const stopDuringEnd = channel.stop !== stopBefore ? channel.stop : null;
  const targetExited =
    stopDuringEnd?.kind === 'exit' ||
    stopDuringEnd?.processExited === true ||
    channel.dialect.isTargetExitText(output);
  const live = channel.dialect.isLive(context.target);
  return {
    detached: live && detached,
    exitCode: channel.exitInfo?.exitCode ?? null,
    forced,
    output,
    targetExited,
  };
}

/** Sends the end commands; true when the detaching ones reached the debugger. */
async function sendEndCommands(context: EndContext, remaining: () => number): Promise<boolean> {
  const { channel } = context;
  if (channel.state !== 'stopped') return false;
  const commands = channel.dialect.endCommands(context.target);
  let ok = true;
  for (let i = 0; i < commands.length; i++) {
    const command = commands[i] ?? '';
    if (i < commands.length - 1) {
      // e.g. winedbg `detach`: framed, so we know it was read before `quit`.
      try {
        await context.runCommand(command, Math.max(1000, remaining() * 0.5));
      } catch {
        ok = false;
      }
    } else {
      // The last one (cdb `qd`/`q`, winedbg `quit`) ends the debugger: no marker follows. Any
      // earlier command's marker is read first, so the debugger has read everything before it.
      await settleAfter(channel.draining?.done ?? Promise.resolve(), remaining() * 0.3);
      channel.reader = null;
      channel.draining = null;
      channel.write(`${command}\r`);
      await settleAfter(channel.process.exited, remaining());
      if (channel.exitInfo === null) ok = false;
    }
  }
  return ok;
}
