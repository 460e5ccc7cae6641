// One command, framed: wait until the stream is framed (an earlier command has reached its
// marker), write the command and a fresh marker command in ONE write, and hand the output back as
// soon as it is complete (see command-output.ts for when that is). One debugger round trip per
// command: the marker is read by the debugger after the command, never waited for separately.
import { AbortedError, OutputLimitError, TimeoutError, UsageError } from '../errors.js';
import { CommandOutput, type OutputLimits } from './command-output.js';
import { CommandReader } from './command-reader.js';
import { settleAfter, waitWithDeadline } from './deadline.js';
import type { SessionChannel } from './session-channel.js';
import { RECOVERY_MS } from './session-defaults.js';
import type { CommandResult, ExecuteOptions } from './session-types.js';

export interface FramingContext {
  channel: SessionChannel;
  limits: OutputLimits;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  /** Ends the session safely when even Ctrl-C cannot bring a runaway command's marker back. */
  giveUp(): void;
}

/** Waits (bounded) until no earlier command is still reading on to its marker. */
export async function waitUntilFramed(
  context: Pick<FramingContext, 'channel' | 'timeoutMs' | 'signal'>,
  command: string,
): Promise<void> {
  const { channel, timeoutMs, signal } = context;
  const busy = channel.draining;
  if (busy && !busy.finished) {
    const errorOptions = () => ({ command, lastOutput: channel.lastOutput() });
    await waitWithDeadline(busy.done, {
      timeoutMs,
      signal,
      onTimeout: () =>
        new TimeoutError(
          `The debugger is still busy with "${busy.output.command}"${busy.abandoned ? ' (it timed out earlier)' : ''}; "${command}" was not sent.`,
          timeoutMs,
          errorOptions(),
        ),
      onAbort: () => new AbortedError(`"${command}" aborted before it was sent.`, errorOptions()),
    });
  }
  channel.draining = null;
}

/** Sends a command with its end marker and collects its output (caller holds the queue). */
export async function runFramedCommand(
  context: FramingContext,
  command: string,
  options: ExecuteOptions,
): Promise<CommandResult> {
  const { channel, timeoutMs, signal } = context;
  if (channel.state === 'running') {
    throw new UsageError(
      `Cannot run "${command}" while the target runs: the debugger reads no input until the next stop. Call waitForStop() or interrupt() first.`,
      { command },
    );
  }
  const started = performance.now();
  const errorOptions = () => ({ command, lastOutput: channel.lastOutput() });
  // A command that timed out earlier may still be printing: wait for its marker first, so its
  // late output is never charged to this command.
  await waitUntilFramed(context, command);
  const marker = channel.markers.next();
  const markerCommand = channel.dialect.markerCommand(marker);
  const output = new CommandOutput(channel.dialect, command, markerCommand, marker, {
    maxBytes: options.maxBytes ?? context.limits.maxBytes,
    maxLines: options.maxLines ?? context.limits.maxLines,
    hardMaxBytes: options.hardMaxBytes ?? context.limits.hardMaxBytes,
    hardMaxLines: options.hardMaxLines ?? context.limits.hardMaxLines,
  });
  let hardLimit: (() => void) | undefined;
  const limitHit = new Promise<never>((_resolve, reject) => {
    hardLimit = () =>
      reject(
        new OutputLimitError(
          `"${command}" printed more than the hard output limit (${output.droppedBytes} characters and ${output.droppedLines} lines dropped); it was interrupted.`,
          errorOptions(),
        ),
      );
  });
  limitHit.catch(() => undefined);
  const reader = new CommandReader(output, () => {
    hardLimit?.();
    // Stop the runaway command; its marker is already queued behind it.
    channel.write('\x03');
  });
  channel.reader = reader;
  channel.write(`${command}\r${markerCommand}\r`);
  try {
    await waitWithDeadline(Promise.race([reader.complete, limitHit]), {
      timeoutMs,
      signal,
      onTimeout: () =>
        new TimeoutError(
          `"${command}" did not finish within ${timeoutMs} ms.`,
          timeoutMs,
          errorOptions(),
        ),
      onAbort: () => new AbortedError(`"${command}" was aborted.`, errorOptions()),
    });
  } catch (error) {
    if (!reader.finished) keepDraining(context, reader, error);
    throw error;
  }
  // The result is ready; the marker's own echo and output are still on their way.
  if (!reader.finished) keepDraining(context, reader, null);
  else if (channel.reader === reader) channel.reader = null;
  const lines = output.result();
  const result: CommandResult = {
    command,
    output: lines.join('\n'),
    lines,
    durationMs: performance.now() - started,
    truncated: output.truncated,
  };
  if (output.truncated) {
    result.droppedLines = output.droppedLines;
    result.droppedBytes = output.droppedBytes;
  }
  return result;
}

/** Keep reading until the command's marker so the stream stays framed for the next command. */
function keepDraining(context: FramingContext, reader: CommandReader, error: unknown): void {
  const { channel } = context;
  channel.draining = reader;
  if (error !== null) reader.abandoned = true;
  const clear = () => {
    if (channel.reader === reader) channel.reader = null;
    if (channel.draining === reader) channel.draining = null;
  };
  reader.done.then(clear, clear);
  if (error instanceof OutputLimitError) {
    // If even Ctrl-C does not bring the marker back, end the session safely.
    const timer = setTimeout(() => {
      if (!reader.finished && !channel.closing) context.giveUp();
    }, RECOVERY_MS);
    reader.done.then(
      () => clearTimeout(timer),
      () => clearTimeout(timer),
    );
  }
}

/** Bounded wait for any command still reading on to its marker (used before go and close). */
export async function settleDraining(channel: SessionChannel, ms: number): Promise<boolean> {
  const busy = channel.draining;
  if (!busy || busy.finished) return true;
  await settleAfter(busy.done, ms);
  return busy.finished;
}
