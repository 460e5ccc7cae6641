// One debugger process on a pseudo-terminal, spoken to one command at a time.
//
// States: 'stopped' (the debugger reads commands), 'running' (after a go command: the debugger
// reads nothing until the next stop, so no marker is sent and everything up to the next prompt is
// stop or application output), 'exited' (the debugger process ended).
//
// Framing: each command is written together with a marker command on its own line
// (`cmd\r.echo _qzk7_\r`); the command is finished when a whole output line is exactly the
// fresh marker and the prompt follows it. The echo of the marker command holds more than the
// marker, so it never matches (survey §0.1–0.3, lab §2).
//
// Safety: a live target is never killed. close(), the session AbortSignal and the hard error
// paths end with the dialect's detaching commands; killing the debugger is the last resort,
// after detach was tried (killing an attached winedbg kills its target, lab §2).
import { chmod } from 'node:fs/promises';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import {
  AbortedError,
  DebuggerExitedError,
  OutputLimitError,
  TargetError,
  TimeoutError,
  UsageError,
} from '../errors.js';
import { PtyProcess, type PtyExit } from '../pty/pty-process.js';
import { CommandOutput, type OutputLimits } from './command-output.js';
import { settleAfter, waitWithDeadline } from './deadline.js';
import { getDialect, type Dialect, type SessionTarget } from './dialects/dialect.js';
import { locateCdb } from './dialects/locate-cdb.js';
import { LastLines } from './last-lines.js';
import { MarkerSource } from './marker.js';
import type { StopEvent } from './stop-event.js';
import { TranscriptRecorder } from './transcript-recorder.js';

export interface SessionOptions {
  dialect: 'cdb' | 'winedbg';
  target: SessionTarget;
  /** Default: cdb → locateCdb(); winedbg → `winedbg` on PATH. */
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
}

export interface ExecuteOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  maxBytes?: number;
  maxLines?: number;
  hardMaxBytes?: number;
  hardMaxLines?: number;
}

type SessionState = 'stopped' | 'running' | 'exited';

/** Something that consumes the clean text stream until it is satisfied. */
interface Reader {
  feed(text: string): void;
  fail(error: Error): void;
}

const DEFAULT_START_TIMEOUT_MS = 60_000;
const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
const DEFAULT_DUMP_TIMEOUT_MS = 300_000;
const DEFAULT_CLOSE_TIMEOUT_MS = 15_000;
const DEFAULT_INTERRUPT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_LINES = 250_000;
/** How long go() waits for the debugger to show it read the go command (its echo). */
const GO_ACK_MS = 1000;
/**
 * Minimum time between writing a go command and a Ctrl-C. On a tty in canonical mode the kernel
 * echoes `g` before the debugger has read it, and a SIGINT then flushes the unread line, so the
 * echo alone is no proof the go was read; a short settle closes that window.
 */
const GO_SETTLE_MS = 30;
/** How long interrupt() lets a stop that is being printed reach its prompt, and what quiet means. */
const STOP_PRINT_GRACE_MS = 3000;
const STOP_PRINT_QUIET_MS = 250;
/** After a hard output limit: how long the interrupted command gets to reach its marker. */
const RECOVERY_MS = 10_000;
/** Stop text beyond this is cut in the middle (head and tail kept: the event is at the end). */
const MAX_STOP_TEXT = 1024 * 1024;
const STOP_TEXT_HEAD = 64 * 1024;
const STOP_TEXT_TAIL = 512 * 1024;

/** Collects the text of a stop (or of start-up) until the prompt on the unfinished last line. */
class StopReader implements Reader {
  private text = '';
  private dropped = 0;
  private sawNewline = false;
  readonly done: Promise<string>;
  private resolveDone: (text: string) => void = () => undefined;
  private rejectDone: (error: Error) => void = () => undefined;
  private resolveAck: () => void = () => undefined;
  /** Resolves when the debugger showed it read our input (a complete line arrived). */
  readonly ack: Promise<void>;
  finished = false;
  /** Characters that arrived after the go command's echo line: a stop may be printing. */
  afterAckChars = 0;
  lastDataAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly dialect: Dialect) {
    this.done = new Promise((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    this.done.catch(() => undefined);
    this.ack = new Promise((resolve) => (this.resolveAck = resolve));
  }

  feed(text: string): void {
    if (this.finished) return;
    this.text += text;
    this.lastDataAt = performance.now();
    if (this.sawNewline) this.afterAckChars += text.length;
    else if (text.includes('\n')) {
      this.sawNewline = true;
      this.afterAckChars += text.length - text.indexOf('\n') - 1;
      this.resolveAck();
    }
    if (this.text.length > MAX_STOP_TEXT) {
      const cut = this.text.length - STOP_TEXT_HEAD - STOP_TEXT_TAIL;
      this.dropped += cut;
      this.text =
        this.text.slice(0, STOP_TEXT_HEAD) +
        `\n[… ${this.dropped} characters not kept …]\n` +
        this.text.slice(this.text.length - STOP_TEXT_TAIL);
    }
    const lastNewline = this.text.lastIndexOf('\n');
    const lastLine = this.text.slice(lastNewline + 1);
    if (this.dialect.isPrompt(lastLine)) {
      this.finished = true;
      this.resolveAck();
      this.resolveDone(this.text);
    }
  }

  fail(error: Error): void {
    if (this.finished) return;
    this.finished = true;
    this.resolveAck();
    this.rejectDone(error);
  }

  get partialText(): string {
    return this.text;
  }
}

/** Feeds a CommandOutput and settles when the marker and the prompt after it have arrived. */
class CommandReader implements Reader {
  readonly done: Promise<void>;
  private resolveDone: () => void = () => undefined;
  private rejectDone: (error: Error) => void = () => undefined;
  finished = false;

  constructor(
    readonly output: CommandOutput,
    private readonly onHardLimit: () => void,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    this.done.catch(() => undefined);
  }

  feed(text: string): void {
    if (this.finished) return;
    const state = this.output.feed(text);
    if (state === 'done') {
      this.finished = true;
      this.resolveDone();
    } else if (state === 'hard-limit') {
      this.onHardLimit();
    }
  }

  fail(error: Error): void {
    if (this.finished) return;
    this.finished = true;
    this.rejectDone(error);
  }
}

export class DebuggerSession {
  readonly dialect: Dialect;
  readonly target: SessionTarget;
  banner = '';
  initialStop: StopEvent;
  startDurationMs = 0;
  /** The debugger process on its pty (for diagnostics; prefer the session's methods). */
  readonly process: PtyProcess;

  private readonly options: SessionOptions;
  private readonly markers = new MarkerSource();
  // Errors show what the debugger printed, not our framing (`0:000> .echo _qzk7_`).
  private readonly lastLines = new LastLines(undefined, (line) => this.markers.owns(line));
  private readonly outputListeners = new Set<(text: string) => void>();
  private readonly recorder: TranscriptRecorder | null;
  private readonly limits: OutputLimits;
  private currentState: SessionState = 'stopped';
  private stop: StopEvent | null = null;
  private reader: Reader | null = null;
  /** The command reader still draining after its caller gave up (timeout, abort, limit). */
  private draining: CommandReader | null = null;
  /** The stop reader of the last go, until waitForStop() has returned its stop. */
  private pendingStop: StopReader | null = null;
  private pendingStopCommand = '';
  private interruptRequested = false;
  private queue: Promise<unknown> = Promise.resolve();
  private closePromise: Promise<SessionEnd> | null = null;
  private closing = false;
  private aborted = false;
  private exitInfo: PtyExit | null = null;
  private removeSessionAbort: (() => void) | undefined;

  private constructor(options: SessionOptions, dialect: Dialect, pty: PtyProcess, startMs: number) {
    this.options = options;
    this.dialect = dialect;
    this.target = options.target;
    this.process = pty;
    this.initialStop = { kind: 'initial', text: '', atMs: startMs };
    const limits = options.outputLimits ?? {};
    const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
    const maxLines = limits.maxLines ?? DEFAULT_MAX_LINES;
    this.limits = {
      maxBytes,
      maxLines,
      hardMaxBytes: limits.hardMaxBytes ?? maxBytes * 4,
      hardMaxLines: limits.hardMaxLines ?? maxLines * 4,
    };
    this.recorder =
      options.recordPath === undefined ? null : new TranscriptRecorder(options.recordPath, startMs);
    pty.onRawData((raw) => this.recorder?.record('out', raw));
    pty.onData((text) => this.onText(text));
    pty.onExit((exit) => this.onExit(exit));
  }

  /** Spawns the debugger, waits for its first prompt and runs the dialect's setup commands. */
  static async start(options: SessionOptions): Promise<DebuggerSession> {
    const dialect = getDialect(options.dialect);
    if (options.signal?.aborted === true) {
      throw new AbortedError('Debugger session aborted before it started.');
    }
    const dialectArgs = dialect.launchArgs(options.target, {
      ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
      ...(options.extraArgs === undefined ? {} : { extraArgs: options.extraArgs }),
    });
    const spawn = options.debuggerCommandPrefix
      ? dialect.spawnCommand(options.debuggerCommandPrefix.file, [
          ...options.debuggerCommandPrefix.args,
          ...dialectArgs,
        ])
      : dialect.spawnCommand(
          options.debuggerPath ??
            (dialect.name === 'cdb' ? locateCdb(options.env ?? process.env) : 'winedbg'),
          dialectArgs,
        );
    const startMs = performance.now();
    const pty = PtyProcess.spawn({
      file: spawn.file,
      args: spawn.args,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.cols === undefined ? {} : { cols: options.cols }),
    });
    const session = new DebuggerSession(options, dialect, pty, startMs);
    session.recorder?.record('in', JSON.stringify({ spawn: spawn.file, args: spawn.args }));
    await session.waitForFirstPrompt(startMs);
    return session;
  }

  private async waitForFirstPrompt(startMs: number): Promise<void> {
    const timeoutMs = this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    const reader = new StopReader(this.dialect);
    this.reader = reader;
    this.currentState = 'running';
    try {
      const text = await waitWithDeadline(reader.done, {
        timeoutMs,
        signal: this.options.signal,
        onTimeout: () =>
          new TimeoutError(
            `The debugger printed no prompt within ${timeoutMs} ms of starting.`,
            timeoutMs,
            { lastOutput: this.lastLines.snapshot() },
          ),
        onAbort: () =>
          new AbortedError('Debugger start aborted.', { lastOutput: this.lastLines.snapshot() }),
      });
      this.reader = null;
      this.currentState = 'stopped';
      this.banner = withoutLastLine(text);
      const failure = this.dialect.startFailure(this.banner);
      if (failure) {
        throw new TargetError(failure.reason, failure.message, {
          lastOutput: this.lastLines.snapshot(),
        });
      }
      const parsed = this.dialect.parseStop(this.banner);
      this.initialStop = { ...parsed, kind: 'initial', atMs: performance.now() };
      this.stop = this.initialStop;
      if (this.options.signal) {
        const signal = this.options.signal;
        const onAbort = () => this.onSessionAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        this.removeSessionAbort = () => signal.removeEventListener('abort', onAbort);
      }
      for (const command of this.dialect.setupCommands(this.target)) {
        await this.execute(command, { timeoutMs });
      }
      this.startDurationMs = performance.now() - startMs;
    } catch (error) {
      if (this.reader === reader) this.reader = null;
      const banner = reader.partialText;
      const failure = this.dialect.startFailure(banner);
      // Never leave a half-started attached debugger behind: end it safely.
      await this.close({ timeoutMs: 10_000 }).catch(() => undefined);
      if (failure && !(error instanceof TargetError)) {
        throw new TargetError(failure.reason, failure.message, {
          lastOutput: this.lastLines.snapshot(),
          cause: error,
        });
      }
      throw error;
    }
  }

  get state(): SessionState {
    return this.currentState;
  }

  get lastStop(): StopEvent | null {
    return this.stop;
  }

  /** The last output lines (for diagnostics and error messages). */
  lastOutput(): string[] {
    return this.lastLines.snapshot();
  }

  onOutput(listener: (text: string) => void): () => void {
    this.outputListeners.add(listener);
    return () => this.outputListeners.delete(listener);
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
      return this.runCommand(command, options);
    });
  }

  private get commandTimeoutMs(): number {
    return this.options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      this.assertUsable();
      return task();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private assertUsable(): void {
    if (this.aborted) {
      throw new AbortedError('The debugger session was aborted.', {
        lastOutput: this.lastLines.snapshot(),
      });
    }
    if (this.currentState === 'exited') {
      throw new DebuggerExitedError(
        'The debugger has exited.',
        this.exitInfo ?? { exitCode: null, signal: null },
        {
          lastOutput: this.lastLines.snapshot(),
        },
      );
    }
    if (this.closing) throw new UsageError('The debugger session is closing.');
  }

  /** Sends a command with its end marker and collects its output (caller holds the queue). */
  private async runCommand(
    command: string,
    options: ExecuteOptions,
    withSessionSignal = true,
  ): Promise<CommandResult> {
    const signal = withSessionSignal ? this.combinedSignal(options.signal) : options.signal;
    if (this.currentState === 'running') {
      throw new UsageError(
        `Cannot run "${command}" while the target runs: the debugger reads no input until the next stop. Call waitForStop() or interrupt() first.`,
        { command },
      );
    }
    const timeoutMs = options.timeoutMs ?? this.commandTimeoutMs;
    const started = performance.now();
    const errorOptions = () => ({ command, lastOutput: this.lastLines.snapshot() });
    // A command that timed out earlier may still be printing: wait for its marker first, so its
    // late output is never charged to this command.
    if (this.draining && !this.draining.finished) {
      await waitWithDeadline(this.draining.done, {
        timeoutMs,
        signal,
        onTimeout: () =>
          new TimeoutError(
            `The debugger is still busy with "${this.draining?.output.command ?? '?'}" (it timed out earlier); "${command}" was not sent.`,
            timeoutMs,
            errorOptions(),
          ),
        onAbort: () => new AbortedError(`"${command}" aborted before it was sent.`, errorOptions()),
      });
    }
    this.draining = null;
    const marker = this.markers.next();
    const markerCommand = this.dialect.markerCommand(marker);
    const output = new CommandOutput(this.dialect, command, markerCommand, marker, {
      maxBytes: options.maxBytes ?? this.limits.maxBytes,
      maxLines: options.maxLines ?? this.limits.maxLines,
      hardMaxBytes: options.hardMaxBytes ?? this.limits.hardMaxBytes,
      hardMaxLines: options.hardMaxLines ?? this.limits.hardMaxLines,
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
      this.writeRaw('\x03');
    });
    this.reader = reader;
    this.writeRaw(`${command}\r${markerCommand}\r`);
    try {
      await waitWithDeadline(Promise.race([reader.done, limitHit]), {
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
      if (!reader.finished) this.keepDraining(reader, error);
      throw error;
    }
    if (this.reader === reader) this.reader = null;
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

  /** The caller gave up on a command; keep reading until its marker so the stream stays framed. */
  private keepDraining(reader: CommandReader, error: unknown): void {
    this.draining = reader;
    const clear = () => {
      if (this.reader === reader) this.reader = null;
      if (this.draining === reader) this.draining = null;
    };
    reader.done.then(clear, clear);
    if (error instanceof OutputLimitError) {
      // If even Ctrl-C does not bring the marker back, end the session safely.
      const timer = setTimeout(() => {
        if (!reader.finished && !this.closing) void this.close().catch(() => undefined);
      }, RECOVERY_MS);
      reader.done.then(
        () => clearTimeout(timer),
        () => clearTimeout(timer),
      );
    }
  }

  // ---- run / stop ----------------------------------------------------------------------------

  /** Resumes the target (dialect go semantics: pass exceptions on). No marker is sent. */
  go(options: { command?: string } = {}): Promise<void> {
    const command = options.command ?? this.dialect.goCommand(this.stop);
    this.dialect.validateCommand(command);
    return this.enqueue(() => this.goNow(command));
  }

  private async goNow(command: string): Promise<void> {
    if (this.currentState === 'running') {
      throw new UsageError(`Cannot "${command}": the target is already running.`, { command });
    }
    if (this.draining && !this.draining.finished) {
      await settleAfter(this.draining.done, this.commandTimeoutMs);
      if (!this.draining.finished) {
        throw new TimeoutError(
          `The debugger is still busy with "${this.draining.output.command}"; "${command}" was not sent.`,
          this.commandTimeoutMs,
          { command, lastOutput: this.lastLines.snapshot() },
        );
      }
      this.draining = null;
    }
    const reader = new StopReader(this.dialect);
    this.reader = reader;
    this.pendingStop = reader;
    this.pendingStopCommand = command;
    this.interruptRequested = false;
    this.currentState = 'running';
    this.goWrittenAt = performance.now();
    this.writeRaw(`${command}\r`);
    // Wait until the debugger has read the go command (its echo arrives): a Ctrl-C sent before
    // that is lost (mcp-windbg #73).
    await settleAfter(reader.ack, GO_ACK_MS);
  }

  /** Resolves with the next stop after a go (or the last stop when the target is not running). */
  async waitForStop(
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<StopEvent> {
    const reader = this.pendingStop;
    if (!reader) {
      if (this.currentState === 'exited') this.assertUsable();
      return this.stop ?? this.initialStop;
    }
    const timeoutMs = options.timeoutMs ?? Number.POSITIVE_INFINITY;
    await waitWithDeadline(reader.done, {
      timeoutMs,
      signal: this.combinedSignal(options.signal),
      onTimeout: () =>
        new TimeoutError(
          `The target did not stop within ${timeoutMs} ms (it is still running).`,
          timeoutMs,
          {
            command: this.pendingStopCommand,
            lastOutput: this.lastLines.snapshot(),
          },
        ),
      onAbort: () =>
        new AbortedError('Waiting for a stop was aborted.', {
          command: this.pendingStopCommand,
          lastOutput: this.lastLines.snapshot(),
        }),
    });
    return this.stopOf(reader);
  }

  /** Parses a finished stop once, as soon as its prompt arrives. */
  private finishStop(reader: StopReader, text: string): void {
    const clean = stopText(text, this.pendingStopCommand, this.dialect);
    const parsed = this.dialect.parseStop(clean);
    if (
      this.interruptRequested &&
      (parsed.kind === 'unknown' || (parsed.kind === 'exception' && parsed.code === '0x80000003'))
    ) {
      parsed.kind = 'break-in';
    }
    this.stop = parsed;
    this.stops.set(reader, parsed);
    if (this.pendingStop === reader) this.pendingStop = null;
  }

  private stopOf(reader: StopReader): StopEvent {
    return this.stops.get(reader) ?? this.stop ?? this.initialStop;
  }

  private readonly stops = new WeakMap<StopReader, StopEvent>();
  private goWrittenAt = Number.NEGATIVE_INFINITY;

  private combinedSignal(signal: AbortSignal | undefined): AbortSignal | undefined {
    const session = this.options.signal;
    if (!session) return signal;
    if (!signal) return session;
    return AbortSignal.any([signal, session]);
  }

  /** Breaks into a running target with Ctrl-C and returns the stop. */
  async interrupt(options: { timeoutMs?: number } = {}): Promise<StopEvent> {
    const reader = this.pendingStop;
    if (!reader) return this.stop ?? this.initialStop;
    if (reader.finished) {
      await reader.done;
      return this.stopOf(reader);
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_INTERRUPT_TIMEOUT_MS;
    await settleAfter(reader.ack, Math.min(GO_ACK_MS, timeoutMs));
    const sinceGo = performance.now() - this.goWrittenAt;
    if (sinceGo < GO_SETTLE_MS)
      await settleAfter(new Promise(() => undefined), GO_SETTLE_MS - sinceGo);
    // A stop already being printed must not be interrupted: winedbg answers a Ctrl-C in the
    // middle of printing a stop by exiting, and an attached target dies with it. While output
    // flows, wait for its prompt; output that goes quiet without one (cdb ModLoad lines while the
    // target runs) is no stop, so Ctrl-C goes out after a short quiet spell.
    const graceEnd = performance.now() + Math.min(STOP_PRINT_GRACE_MS, timeoutMs / 2);
    while (
      reader.afterAckChars > 0 &&
      !reader.finished &&
      performance.now() < graceEnd &&
      performance.now() - reader.lastDataAt < STOP_PRINT_QUIET_MS
    ) {
      await settleAfter(reader.done, 25);
    }
    if (reader.finished) {
      await reader.done;
      return this.stopOf(reader);
    }
    this.interruptRequested = true;
    this.writeRaw('\x03');
    // A break sent too early can be lost; send a second one half-way if no stop came.
    const retry = setTimeout(() => {
      if (!reader.finished) this.writeRaw('\x03');
    }, timeoutMs / 2);
    try {
      await waitWithDeadline(reader.done, {
        timeoutMs,
        onTimeout: () =>
          new TimeoutError(
            `The debugger did not break in within ${timeoutMs} ms of Ctrl-C.`,
            timeoutMs,
            {
              command: '<Ctrl-C>',
              lastOutput: this.lastLines.snapshot(),
            },
          ),
        onAbort: () => new AbortedError('Interrupt aborted.'),
      });
      return this.stopOf(reader);
    } finally {
      clearTimeout(retry);
    }
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
    // Dumps hold secrets: owner-only (design.md). Windows ACLs are left to the user's profile.
    if (process.platform !== 'win32') await chmod(absolute, 0o600).catch(() => undefined);
    return result;
  }

  // ---- ending ------------------------------------------------------------------------------

  /**
   * Ends the session without harming a live target: breaks in if running, sends the dialect's
   * end commands (cdb `qd`, winedbg `detach` + `quit`), waits for the debugger to exit and kills
   * its process tree only as a last resort (forced: true).
   */
  close(options: { timeoutMs?: number } = {}): Promise<SessionEnd> {
    this.closePromise ??= this.closeNow(options.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
    return this.closePromise;
  }

  private async closeNow(timeoutMs: number): Promise<SessionEnd> {
    this.closing = true;
    const deadline = performance.now() + timeoutMs;
    const remaining = () => Math.max(0, deadline - performance.now());
    const seen: string[] = [];
    const unsubscribe = this.onOutput((text) => seen.push(text));
    let detached = false;
    let forced = false;
    try {
      if (this.currentState !== 'exited') {
        // Let a command in flight finish (bounded): its marker keeps the stream framed.
        await settleAfter(this.queue, remaining() * 0.3);
        const inFlight = this.reader instanceof CommandReader ? this.reader : this.draining;
        if (inFlight && !inFlight.finished) await settleAfter(inFlight.done, remaining() * 0.3);
        if (this.currentState === 'running') {
          await this.interrupt({
            timeoutMs: Math.min(DEFAULT_INTERRUPT_TIMEOUT_MS, remaining() * 0.4),
          }).catch(() => undefined);
        }
        detached = await this.sendEndCommands(remaining);
      }
      if (this.currentState !== 'exited') {
        const exited = await settleAfter(this.process.exited, remaining()).then(
          () => this.exitInfo !== null,
        );
        if (!exited) {
          forced = true;
          await this.process.killTree('SIGTERM');
        }
      }
    } finally {
      unsubscribe();
      this.removeSessionAbort?.();
      this.failReaders(new UsageError('The debugger session was closed.'));
      await this.recorder?.close();
    }
    const live = this.dialect.isLive(this.target);
    return {
      detached: live && detached,
      exitCode: this.exitInfo?.exitCode ?? null,
      forced,
      output: seen.join(''),
    };
  }

  /** Sends the end commands; true when the detaching ones reached the debugger. */
  private async sendEndCommands(remaining: () => number): Promise<boolean> {
    if (this.currentState !== 'stopped') return false;
    const commands = this.dialect.endCommands(this.target);
    let ok = true;
    for (let i = 0; i < commands.length; i++) {
      const command = commands[i] ?? '';
      if (i < commands.length - 1) {
        // e.g. winedbg `detach`: framed, so we know it was read before `quit`.
        try {
          this.draining = null;
          await this.runCommand(command, { timeoutMs: Math.max(1000, remaining() * 0.5) }, false);
        } catch {
          ok = false;
        }
      } else {
        // The last one (cdb `qd`/`q`, winedbg `quit`) ends the debugger: no marker follows.
        this.reader = null;
        this.writeRaw(`${command}\r`);
        await settleAfter(this.process.exited, remaining());
        if (this.exitInfo === null) ok = false;
      }
    }
    return ok;
  }

  /** Kills the debugger's process tree at once (a live target of an attached winedbg dies too). */
  async kill(): Promise<void> {
    this.closing = true;
    await this.process.killTree('SIGKILL');
    this.failReaders(new UsageError('The debugger session was killed.'));
    this.removeSessionAbort?.();
    await this.recorder?.close();
  }

  // ---- plumbing ------------------------------------------------------------------------------

  private writeRaw(text: string): void {
    this.recorder?.record('in', text);
    this.process.write(text);
  }

  private onText(text: string): void {
    this.lastLines.push(text);
    for (const listener of this.outputListeners) listener(text);
    const reader = this.reader;
    if (!reader) return;
    reader.feed(text);
    if (reader instanceof StopReader && reader.finished && this.reader === reader) {
      this.reader = null;
      this.currentState = 'stopped';
      if (reader === this.pendingStop) this.finishStop(reader, reader.partialText);
    } else if (reader instanceof CommandReader && reader.finished && this.reader === reader) {
      this.reader = null;
    }
  }

  private onExit(exit: PtyExit): void {
    this.exitInfo = exit;
    this.currentState = 'exited';
    this.recorder?.record('exit', JSON.stringify(exit));
    const command =
      this.reader instanceof CommandReader
        ? this.reader.output.command
        : this.reader instanceof StopReader
          ? this.pendingStopCommand || undefined
          : undefined;
    const error = new DebuggerExitedError(
      `The debugger exited (code ${exit.exitCode ?? 'none'}${exit.signal === null ? '' : `, signal ${exit.signal}`})${this.closing ? ' while the session was closing' : ''}.`,
      exit,
      { command, lastOutput: this.lastLines.snapshot() },
    );
    this.failReaders(error);
    this.removeSessionAbort?.();
    if (!this.closing) void this.recorder?.close();
  }

  private failReaders(error: Error): void {
    const readers = [this.reader, this.draining, this.pendingStop];
    this.reader = null;
    for (const reader of readers) reader?.fail(error);
  }

  /** Session abort: waiting calls reject through their combined signal; the end is safe. */
  private onSessionAbort(): void {
    this.aborted = true;
    void this.close().catch(() => undefined);
  }
}

/** Everything before the prompt line. */
function withoutLastLine(text: string): string {
  const at = text.lastIndexOf('\n');
  return at < 0 ? '' : text.slice(0, at);
}

/** The stop output without the echoed go command and the closing prompt. */
function stopText(text: string, goCommand: string, dialect: Dialect): string {
  const lines = withoutLastLine(text).split('\n');
  const lastLine = text.slice(text.lastIndexOf('\n') + 1).replace(dialect.promptPattern, '');
  if (lastLine.length > 0) lines.push(lastLine);
  if (lines.length > 0 && dialect.stripPrompt(lines[0] ?? '').trim() === goCommand.trim())
    lines.shift();
  return lines.join('\n');
}
