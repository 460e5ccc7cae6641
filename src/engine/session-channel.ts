// The wire to one debugger: its pty, what flows through it, who is reading it now, and what the
// session knows about the target's last stop. The session's commands, stops, interrupt and end
// all read and write through this one object, so the state lives in one place.
import { AbortedError, DebuggerExitedError, UsageError } from '../errors.js';
import type { PtyExit, PtyProcess } from '../pty/pty-process.js';
import { CommandReader } from './command-reader.js';
import type { Dialect } from './dialects/types.js';
import type { StopEvent } from './dialects/common/stop-event.js';
import { LastLines } from './last-lines.js';
import { MarkerSource } from './marker.js';
import type { SessionState } from './session-types.js';
import { StopReader, stopText, type Reader } from './stop-reader.js';
import type { TranscriptRecorder } from './transcript-recorder.js';

export class SessionChannel {
  readonly markers = new MarkerSource();
  // Errors show what the debugger printed, not our framing (`0:000> .echo _qzk7_`).
  private readonly lastLines = new LastLines(undefined, (line) => this.markers.owns(line));
  private readonly outputListeners = new Set<(text: string) => void>();
  state: SessionState = 'stopped';
  /** The one reader the stream goes to now. */
  reader: Reader | null = null;
  /** A command reader still reading on to its marker (its caller has its result, or gave up). */
  draining: CommandReader | null = null;
  /** The stop reader of the last go, until waitForStop() has returned its stop. */
  pendingStop: StopReader | null = null;
  pendingStopCommand = '';
  goWrittenAt = Number.NEGATIVE_INFINITY;
  interruptRequested = false;
  /** How the last break-in was sent, and why DebugBreakProcess was not (stamped on the stop). */
  breakInBy: 'DebugBreakProcess' | 'Ctrl-C' | null = null;
  breakInFallback: string | null = null;
  stop: StopEvent | null = null;
  initialStop: StopEvent;
  exitInfo: PtyExit | null = null;
  closing = false;
  aborted = false;
  private readonly stops = new WeakMap<StopReader, StopEvent>();
  /** Called when the debugger exits (the session drops its abort listener there). */
  onExited: () => void = () => undefined;

  constructor(
    readonly dialect: Dialect,
    readonly process: PtyProcess,
    readonly recorder: TranscriptRecorder | null,
    startMs: number,
  ) {
    this.initialStop = { kind: 'initial', text: '', atMs: startMs };
    process.onRawData((raw) => this.recorder?.record('out', raw));
    process.onData((text) => this.onText(text));
    process.onExit((exit) => this.onExit(exit));
  }

  write(text: string): void {
    this.recorder?.record('in', text);
    this.process.write(text);
  }

  /** The last output lines (for diagnostics and error messages). */
  lastOutput(): string[] {
    return this.lastLines.snapshot();
  }

  onOutput(listener: (text: string) => void): () => void {
    this.outputListeners.add(listener);
    return () => this.outputListeners.delete(listener);
  }

  /** The stop a go's reader ended with (or the last one known). */
  stopOf(reader: StopReader): StopEvent {
    return this.stops.get(reader) ?? this.stop ?? this.initialStop;
  }

  failReaders(error: Error): void {
    const readers = [this.reader, this.draining, this.pendingStop];
    this.reader = null;
    for (const reader of readers) reader?.fail(error);
  }

  private onText(text: string): void {
    this.lastLines.push(text);
    for (const listener of this.outputListeners) listener(text);
    const reader = this.reader;
    if (!reader) return;
    reader.feed(text);
    if (reader instanceof StopReader && reader.finished && this.reader === reader) {
      this.reader = null;
      this.state = 'stopped';
      if (reader === this.pendingStop) this.finishStop(reader, reader.partialText);
    } else if (reader instanceof CommandReader && reader.finished && this.reader === reader) {
      this.reader = null;
    }
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
      if (this.breakInBy !== null) parsed.breakInBy = this.breakInBy;
      if (this.breakInFallback !== null) parsed.breakInFallback = this.breakInFallback;
    }
    this.stop = parsed;
    this.stops.set(reader, parsed);
    if (this.pendingStop === reader) this.pendingStop = null;
  }

  private onExit(exit: PtyExit): void {
    this.exitInfo = exit;
    this.state = 'exited';
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
    this.onExited();
    if (!this.closing) void this.recorder?.close();
  }

  /** Throws when no more commands can be sent (aborted, exited, closing). */
  assertUsable(): void {
    if (this.aborted) {
      throw new AbortedError('The debugger session was aborted.', {
        lastOutput: this.lastLines.snapshot(),
      });
    }
    if (this.state === 'exited') {
      throw new DebuggerExitedError(
        'The debugger has exited.',
        this.exitInfo ?? { exitCode: null, signal: null },
        { lastOutput: this.lastLines.snapshot() },
      );
    }
    if (this.closing) throw new UsageError('The debugger session is closing.');
  }
}
