// One debugger process on a pseudo-terminal, spoken to one command at a time. This file is the
// public face; each idea lives in its own file beside it:
// - session-channel.ts: the pty, what flows through it, who reads it, the last stop;
// - command-framing.ts + command-output.ts: a command and its end marker in one write, and when
//   its output is complete;
// - stop-reader.ts: the text of a stop, up to the next prompt;
// - interrupt.ts: breaking in, never while a stop is being printed;
// - session-end.ts: ending without harming a live target;
// - session-defaults.ts, session-types.ts: budgets and shapes.
//
// Safety: a live target is never killed. close(), the session AbortSignal and the hard error
// paths end with the dialect's detaching commands; killing the debugger is the last resort,
// after detach was tried (killing an attached winedbg kills its target).
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { AbortedError, TargetError, TimeoutError, UsageError } from '../errors.js';
import { PtyProcess } from '../pty/pty-process.js';
import type { OutputLimits } from './command-output.js';
import { runFramedCommand, settleDraining } from './command-framing.js';
import { settleAfter, waitWithDeadline } from './deadline.js';
import type { Dialect, SessionTarget } from './dialects/types.js';
import type { StopEvent } from './dialects/common/stop-event.js';
import { breakIn, outsideBreakIn } from './interrupt.js';
import { dialectOf, spawnCommandFor } from './launch.js';
import { SessionChannel } from './session-channel.js';
import {
  DEFAULT_CLOSE_TIMEOUT_MS,
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_DUMP_TIMEOUT_MS,
  DEFAULT_INTERRUPT_TIMEOUT_MS,
  DEFAULT_START_TIMEOUT_MS,
  GO_ACK_MS,
  sessionOutputLimits,
} from './session-defaults.js';
import { endSession } from './session-end.js';
import type {
  CommandResult,
  ExecuteOptions,
  SessionEnd,
  SessionOptions,
  SessionState,
} from './session-types.js';
import { StopReader, withoutLastLine } from './stop-reader.js';
import { TranscriptRecorder } from './transcript-recorder.js';
import { restrictToOwner } from '../platform/index.js';
import { eitherSignal } from '../common/either-signal.js';

export type * from './session-types.js';

export class DebuggerSession {
  readonly dialect: Dialect;
  readonly target: SessionTarget;
  banner = '';
  startDurationMs = 0;
  /** The debugger process on its pty (for diagnostics; prefer the session's methods). */
  readonly process: PtyProcess;

  private readonly options: SessionOptions;
  private readonly channel: SessionChannel;
  private readonly limits: OutputLimits;
  private queue: Promise<unknown> = Promise.resolve();
  private closePromise: Promise<SessionEnd> | null = null;
  private removeSessionAbort: (() => void) | undefined;

  private constructor(options: SessionOptions, dialect: Dialect, pty: PtyProcess, startMs: number) {
    this.options = options;
    this.dialect = dialect;
    this.target = options.target;
    this.process = pty;
    this.limits = sessionOutputLimits(options.outputLimits);
    const recorder =
      options.recordPath === undefined ? null : new TranscriptRecorder(options.recordPath, startMs);
    this.channel = new SessionChannel(dialect, pty, recorder, startMs);
    const onExited = () => this.removeSessionAbort?.();
    this.channel.onExited = onExited;
  }

  /** Spawns the debugger, waits for its first prompt and runs the dialect's setup commands. */
  static async start(options: SessionOptions): Promise<DebuggerSession> {
    const dialect = dialectOf(options);
    if (options.signal?.aborted === true) {
      throw new AbortedError('Debugger session aborted before it started.');
    }
    const spawn = spawnCommandFor(dialect, options);
    const startMs = performance.now();
    const pty = PtyProcess.spawn({
      file: spawn.file,
      args: spawn.args,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.cols === undefined ? {} : { cols: options.cols }),
      // A live target outlives the harness even when the harness is killed outright.
      guardLiveTarget: dialect.isLive(options.target),
      keepConsoleAtExit: options.target.kind === 'launch', // the program shares the console
    });
    const session = new DebuggerSession(options, dialect, pty, startMs);
    session.channel.recorder?.record('in', JSON.stringify({ spawn: spawn.file, args: spawn.args }));
    await session.waitForFirstPrompt(startMs);
    return session;
  }

  private async waitForFirstPrompt(startMs: number): Promise<void> {
    const channel = this.channel;
    const timeoutMs = this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    const reader = new StopReader(this.dialect);
    channel.reader = reader;
    channel.state = 'running';
    try {
      const text = await waitWithDeadline(reader.done, {
        timeoutMs,
        signal: this.options.signal,
        onTimeout: () =>
          new TimeoutError(
            `The debugger printed no prompt within ${timeoutMs} ms of starting.`,
            timeoutMs,
            { lastOutput: channel.lastOutput() },
          ),
        onAbort: () =>
          new AbortedError('Debugger start aborted.', { lastOutput: channel.lastOutput() }),
      });
      channel.reader = null;
      channel.state = 'stopped';
      this.banner = withoutLastLine(text);
      const failure = this.dialect.startFailure(this.banner);
      if (failure) {
        throw new TargetError(failure.reason, failure.message, {
          lastOutput: channel.lastOutput(),
        });
      }
      const parsed = this.dialect.parseStop(this.banner);
      channel.initialStop = { ...parsed, kind: 'initial', atMs: performance.now() };
      channel.stop = channel.initialStop;
      if (this.options.signal) {
        const signal = this.options.signal;
        const onAbort = () => this.onSessionAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        const remove = () => signal.removeEventListener('abort', onAbort);
        this.removeSessionAbort = remove;
      }
      for (const command of this.dialect.setupCommands(this.target)) {
        await this.execute(command, { timeoutMs });
      }
      this.startDurationMs = performance.now() - startMs;
    } catch (error) {
      if (channel.reader === reader) channel.reader = null;
      const failure = this.dialect.startFailure(reader.partialText);
      // Never leave a half-started attached debugger behind: end it safely.
      await this.close({ timeoutMs: 10_000 }).catch(() => undefined);
      if (failure && !(error instanceof TargetError)) {
        throw new TargetError(failure.reason, failure.message, {
          lastOutput: channel.lastOutput(),
          cause: error,
        });
      }
      throw error;
    }
  }

  get state(): SessionState {
    return this.channel.state;
  }

  get initialStop(): StopEvent {
    return this.channel.initialStop;
  }

  get lastStop(): StopEvent | null {
    return this.channel.stop;
  }

  /** The last output lines (for diagnostics and error messages). */
  lastOutput(): string[] {
    return this.channel.lastOutput();
  }

  onOutput(listener: (text: string) => void): () => void {
    return this.channel.onOutput(listener);
  }

  // ---- commands ----------------------------------------------------------------------------

  /**
   * Runs one command and returns its output. Commands are queued: one is in flight at a time.
   * A go command (g, gn, cont, pass…) is run as go() + waitForStop() and returns the stop text.
   */
  execute(command: string, options: ExecuteOptions = {}): Promise<CommandResult> {
    this.dialect.validateCommand(command);
    return this.enqueue(async () => {
      if (this.dialect.isGoCommand(command)) {
        const started = performance.now();
        await this.goNow(command);
        const stop = await this.waitForStop({
          timeoutMs: options.timeoutMs ?? this.commandTimeoutMs,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
        return {
          command,
          output: stop.text,
          lines: stop.text.length === 0 ? [] : stop.text.split('\n'),
          durationMs: performance.now() - started,
          truncated: false,
        };
      }
      return this.runCommand(command, options, eitherSignal(options.signal, this.options.signal));
    });
  }

  private runCommand(
    command: string,
    options: ExecuteOptions,
    signal: AbortSignal | undefined,
  ): Promise<CommandResult> {
    return runFramedCommand(
      {
        channel: this.channel,
        limits: this.limits,
        timeoutMs: options.timeoutMs ?? this.commandTimeoutMs,
        signal,
        giveUp: () => void this.close().catch(() => undefined),
      },
      command,
      options,
    );
  }

  private get commandTimeoutMs(): number {
    return this.options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      this.channel.assertUsable();
      return task();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  // ---- run / stop ----------------------------------------------------------------------------

  /** Resumes the target (dialect go semantics: pass exceptions on). No marker is sent. */
  go(options: { command?: string } = {}): Promise<void> {
    const command = options.command ?? this.dialect.goCommand(this.channel.stop);
    this.dialect.validateCommand(command);
    return this.enqueue(() => this.goNow(command));
  }

  private async goNow(command: string): Promise<void> {
    const channel = this.channel;
    if (channel.state === 'running') {
      throw new UsageError(`Cannot "${command}": the target is already running.`, { command });
    }
    const busy = channel.draining;
    if (busy && !(await settleDraining(channel, this.commandTimeoutMs))) {
      throw new TimeoutError(
        `The debugger is still busy with "${busy.output.command}"; "${command}" was not sent.`,
        this.commandTimeoutMs,
        { command, lastOutput: channel.lastOutput() },
      );
    }
    channel.draining = null;
    const reader = new StopReader(this.dialect);
    channel.reader = reader;
    channel.pendingStop = reader;
    channel.pendingStopCommand = command;
    channel.interruptRequested = false;
    channel.breakInBy = null;
    channel.breakInFallback = null;
    channel.state = 'running';
    channel.goWrittenAt = performance.now();
    channel.write(`${command}\r`);
    // Wait until the debugger has read the go command (its echo arrives): a Ctrl-C sent before
    // that is lost.
    await settleAfter(reader.ack, GO_ACK_MS);
  }

  /** Resolves with the next stop after a go (or the last stop when the target is not running). */
  async waitForStop(
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<StopEvent> {
    const channel = this.channel;
    const reader = channel.pendingStop;
    if (!reader) {
      if (channel.state === 'exited') channel.assertUsable();
      return channel.stop ?? channel.initialStop;
    }
    const timeoutMs = options.timeoutMs ?? Number.POSITIVE_INFINITY;
    const errorOptions = () => ({
      command: channel.pendingStopCommand,
      lastOutput: channel.lastOutput(),
    });
    await waitWithDeadline(reader.done, {
      timeoutMs,
      signal: eitherSignal(options.signal, this.options.signal),
      onTimeout: () =>
        new TimeoutError(
          `The target did not stop within ${timeoutMs} ms (it is still running).`,
          timeoutMs,
          errorOptions(),
        ),
      onAbort: () => new AbortedError('Waiting for a stop was aborted.', errorOptions()),
    });
    return channel.stopOf(reader);
  }

  /**
   * Breaks into a running target and returns the stop: by DebugBreakProcess on a live Windows
   * target where the host's way (or `breakIn`) says so, with Ctrl-C as the fallback.
   */
  async interrupt(options: { timeoutMs?: number } = {}): Promise<StopEvent> {
    const channel = this.channel;
    const reader = channel.pendingStop;
    if (!reader) return channel.stop ?? channel.initialStop;
    if (!reader.finished) {
      const timeoutMs = options.timeoutMs ?? DEFAULT_INTERRUPT_TIMEOUT_MS;
      const breakTarget = outsideBreakIn(this, this.options, timeoutMs);
      await breakIn({
        reader,
        goWrittenAt: channel.goWrittenAt,
        timeoutMs,
        patientWithStops: this.dialect.abilities.ctrlCMidStopEndsDebugger,
        beforeBreak: (by) => {
          channel.interruptRequested = true;
          channel.breakInBy = by;
        },
        ...(breakTarget === undefined ? {} : { breakTarget }),
        onBreakTargetRefused: (reason) => (channel.breakInFallback = reason),
        write: (text) => channel.write(text),
        lastOutput: () => channel.lastOutput(),
      });
    }
    await reader.done;
    return channel.stopOf(reader);
  }

  // ---- dumps -------------------------------------------------------------------------------

  /** Writes a dump of the target (owner-only permissions) and returns the debugger's reply. */
  async writeDump(
    path: string,
    kind: 'full' | 'mini',
    options: { timeoutMs?: number } = {},
  ): Promise<CommandResult> {
    const absolute = isAbsolute(path) ? path : resolvePath(this.options.cwd ?? process.cwd(), path);
    const command = this.dialect.writeDumpCommand(absolute, kind);
    const result = await this.execute(command, {
      timeoutMs: options.timeoutMs ?? DEFAULT_DUMP_TIMEOUT_MS,
    });
    // A dump holds the target's memory (secrets, tokens): owner-only. Windows ACLs are left to
    // the user's profile.
    await restrictToOwner(absolute);
    return result;
  }

  // ---- ending ------------------------------------------------------------------------------

  /**
   * Ends the session without harming a live target (see session-end.ts). A stop that is being
   * reported gets to finish before any Ctrl-C; `targetExited` says whether the target exited
   * meanwhile.
   */
  close(options: { timeoutMs?: number } = {}): Promise<SessionEnd> {
    this.closePromise ??= endSession(
      {
        channel: this.channel,
        target: this.target,
        queue: this.queue,
        interrupt: (timeoutMs) => this.interrupt({ timeoutMs }),
        runCommand: (command, timeoutMs) => {
          // A stuck earlier command must not keep the detach from being sent.
          this.channel.draining = null;
          return this.runCommand(command, { timeoutMs }, undefined);
        },
        release: () => this.removeSessionAbort?.(),
      },
      options.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS,
    );
    return this.closePromise;
  }

  /** Kills the debugger's process tree at once (a live target of an attached winedbg dies too). */
  async kill(): Promise<void> {
    this.channel.closing = true;
    await this.process.killTree('SIGKILL');
    this.channel.failReaders(new UsageError('The debugger session was killed.'));
    this.removeSessionAbort?.();
    await this.channel.recorder?.close();
  }

  /** Session abort: waiting calls reject through their combined signal; the end is safe. */
  private onSessionAbort(): void {
    this.channel.aborted = true;
    void this.close().catch(() => undefined);
  }
}
