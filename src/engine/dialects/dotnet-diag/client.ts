// The harness's one client of the .NET runtime's diagnostics IPC channel: it runs cdbh-diag
// (native/dotnet-diag: Microsoft.Diagnostics.NETCore.Client + TraceEvent) and reads its NDJSON.
// Two consumers share it: `watch` on Linux .NET (openExceptionStream: every first-chance throw,
// dumps on the same channel) and heap-trend's counters tier (openCounterStream: System.Runtime
// EventCounters — GC heap size, gen0/1/2/LOH/POH sizes, allocation rate, GC counts, pause time,
// working set, committed bytes). One session object serves both: data lines go to `onData` (or
// queue for `for await`), command replies (dumps) resolve their promises, the `end` line or the
// helper's exit settles `ended`. Every wait has a deadline and an AbortSignal; close() ends stdin
// (the helper stops its EventPipe session, which leaves the target running) and reaps the child.
import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { createInterface } from 'node:readline';
import { waitWithDeadline } from '../../deadline.js';
import { AbortedError, CommandFailedError, TimeoutError } from '../../../errors.js';
import { diagError, helperEnv, type DiagOpenOptions } from './helper-process.js';
import { locateDiagHelper } from './locate.js';
import {
  parseDiagLine,
  type DiagCounter,
  type DiagDump,
  type DiagEnd,
  type DiagException,
  type DiagReady,
} from './protocol.js';

export interface ExceptionStreamOptions extends DiagOpenOptions {
  /** Frames kept per throw (default 32); 0 asks for no stacks (no method events either). */
  frames?: number;
  onData?: (line: DiagException) => void;
}

export interface CounterStreamOptions extends DiagOpenOptions {
  /** Seconds between samples (EventCounterIntervalSec, default 1). */
  intervalSec?: number;
  /** EventCounters provider (default System.Runtime). */
  provider?: string;
  onData?: (line: DiagCounter) => void;
}

const DEFAULT_READY_TIMEOUT_MS = 60_000;
/** The helper's nice value (lowerPriority). */
const HELPER_NICE = 10;
const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;
/** Data lines kept for `for await` when nobody takes them (then the oldest go, counted). */
const QUEUE_LIMIT = 100_000;

export class DiagSession<T extends DiagException | DiagCounter> {
  /** The helper's `ready` line (set before open() resolves). */
  ready: DiagReady = { kind: 'ready', mode: 'exceptions', pid: 0, t: 0 };
  /** Settles with the helper's `end` line (null when it exited without one). */
  readonly ended: Promise<DiagEnd | null>;
  /** Data lines dropped from the `for await` queue because nobody read them. */
  overflow = 0;
  /** Lines that were not the protocol (kept for errors). */
  readonly stray: string[] = [];
  /** The helper's notes (a failed rundown: frames of older code unnamed). */
  readonly notes: string[] = [];

  private readonly queue: T[] = [];
  private wake: (() => void) | null = null;
  private done = false;
  private nextId = 1;
  private readonly pendingDumps = new Map<number, (dump: DiagDump) => void>();

  private constructor(
    private readonly child: ChildProcess,
    ended: Promise<DiagEnd | null>,
  ) {
    this.ended = ended;
  }

  /** Internal: spawns the helper and waits for `ready` (or its error). */
  static async open<T extends DiagException | DiagCounter>(
    mode: 'exceptions' | 'counters',
    extraArgs: readonly string[],
    options: DiagOpenOptions,
    onData: ((line: T) => void) | undefined,
  ): Promise<DiagSession<T>> {
    const helper = locateDiagHelper(options.env, options.helperPath);
    const args = [...helper.args, mode, '--pid', String(options.pid), ...extraArgs];
    if (options.resume === true) args.push('--resume');
    const child = spawn(helper.file, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: helperEnv(options.env),
    });
    lowerPriority(child.pid, options.env);
    let readySeen = false;
    let resolveReady: (line: DiagReady) => void = () => undefined;
    let rejectReady: (error: Error) => void = () => undefined;
    const readyPromise = new Promise<DiagReady>((resolve, reject) => {
      resolveReady = resolve;
      rejectReady = reject;
    });
    let endLine: DiagEnd | null = null;
    let resolveEnded: (end: DiagEnd | null) => void = () => undefined;
    const session = new DiagSession<T>(
      child,
      new Promise<DiagEnd | null>((resolve) => {
        resolveEnded = resolve;
      }),
    );
    const stderr: string[] = [];
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      for (const l of chunk.split('\n')) if (l !== '' && stderr.length < 50) stderr.push(l);
    });
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (text) => {
      const line = parseDiagLine(text);
      switch (line.kind) {
        case 'ready':
          readySeen = true;
          resolveReady(line);
          return;
        case 'exception':
        case 'counter':
          // Lines that come in the same chunk as `ready` are delivered too: the session object
          // exists before the ready line, so nothing is dropped while open() resolves.
          session.deliver(line as T, onData);
          return;
        case 'dump':
          session.settleDump(line);
          return;
        case 'end':
          endLine = line;
          return;
        case 'note':
          if (session.notes.length < 50) session.notes.push(line.message);
          return;
        case 'error':
          if (!readySeen) rejectReady(diagError(line, options.pid));
          else if (session.stray.length < 50) session.stray.push(`${line.code}: ${line.message}`);
          return;
        default:
          if (!readySeen) stderr.push(text.slice(0, 300));
          else if (session.stray.length < 50) session.stray.push(text.slice(0, 300));
      }
    });
    child.once('close', (code, signal) => {
      rejectReady(
        new CommandFailedError(
          `cdbh-diag ended before its session was ready (exit ${code ?? signal ?? '?'})`,
          { lastOutput: stderr },
        ),
      );
      session.finish();
      resolveEnded(endLine);
    });
    child.once('error', (error) =>
      rejectReady(new CommandFailedError(`cdbh-diag: ${error.message}`)),
    );
    const timeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    let ready: DiagReady;
    try {
      ready = await waitWithDeadline(readyPromise, {
        timeoutMs,
        signal: options.signal,
        onTimeout: () =>
          new TimeoutError(
            `cdbh-diag: no session on pid ${options.pid} within ${timeoutMs} ms`,
            timeoutMs,
            { lastOutput: stderr },
          ),
        onAbort: () => new AbortedError('aborted while starting the diagnostics session'),
      });
    } catch (error) {
      child.kill('SIGKILL');
      await session.ended;
      throw error;
    }
    session.ready = ready;
    return session;
  }

  private deliver(line: T, onData: ((line: T) => void) | undefined): void {
    if (onData !== undefined) {
      onData(line);
      return;
    }
    if (this.queue.length >= QUEUE_LIMIT) {
      this.queue.shift();
      this.overflow++;
    }
    this.queue.push(line);
    this.wake?.();
  }

  private finish(): void {
    this.done = true;
    this.wake?.();
    for (const settle of this.pendingDumps.values()) {
      settle({
        kind: 'dump',
        ok: false,
        path: '',
        startT: Date.now(),
        ms: 0,
        error: 'the diagnostics session ended',
      });
    }
    this.pendingDumps.clear();
  }

  private settleDump(line: DiagDump): void {
    const settle = line.id === undefined ? undefined : this.pendingDumps.get(line.id);
    if (settle === undefined || line.id === undefined) return;
    this.pendingDumps.delete(line.id);
    settle(line);
  }

  /** Data lines for `for await`, when the session was opened without onData. Ends with the session. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      const next = this.queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.done) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = null;
    }
  }

  /**
   * Writes a dump of the target through the channel (the runtime's createdump); the session goes
   * on streaming meanwhile. Resolves with ok:false (never rejects) when the runtime refused.
   */
  async dump(
    path: string,
    kind: 'full' | 'heap' | 'mini' | 'triage',
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<DiagDump> {
    if (this.done) throw new CommandFailedError('the diagnostics session has ended: no dump');
    const id = this.nextId++;
    const reply = new Promise<DiagDump>((resolve) => this.pendingDumps.set(id, resolve));
    this.child.stdin?.write(`${JSON.stringify({ op: 'dump', id, path, type: kind })}\n`);
    try {
      return await waitWithDeadline(reply, {
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        onTimeout: () =>
          new TimeoutError(`dump of pid ${this.ready.pid} to ${path}`, options.timeoutMs),
        onAbort: () => new AbortedError(`aborted while dumping pid ${this.ready.pid}`),
      });
    } finally {
      this.pendingDumps.delete(id);
    }
  }

  /**
   * Stops the session (the target keeps running) and reaps the helper: stdin ends, the helper
   * stops its EventPipe session and prints `end`; past the deadline it is killed.
   */
  async close(options: { timeoutMs?: number } = {}): Promise<DiagEnd | null> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin?.end(`${JSON.stringify({ op: 'stop' })}\n`);
    }
    try {
      return await waitWithDeadline(this.ended, {
        timeoutMs,
        onTimeout: () => new TimeoutError('cdbh-diag did not stop', timeoutMs),
        onAbort: () => new AbortedError('aborted'),
      });
    } catch {
      this.child.kill('SIGKILL');
      return this.ended;
    }
  }
}

/** Every first-chance managed exception of `pid`, as it is thrown, until close(). */
export function openExceptionStream(
  options: ExceptionStreamOptions,
): Promise<DiagSession<DiagException>> {
  const frames = options.frames ?? 32;
  const args = frames === 0 ? ['--no-stacks'] : ['--frames', String(frames)];
  return DiagSession.open<DiagException>('exceptions', args, options, options.onData);
}

/** System.Runtime counters of `pid` every intervalSec seconds, until close(). */
export function openCounterStream(
  options: CounterStreamOptions,
): Promise<DiagSession<DiagCounter>> {
  const args = ['--interval', String(options.intervalSec ?? 1)];
  if (options.provider !== undefined) args.push('--provider', options.provider);
  return DiagSession.open<DiagCounter>('counters', args, options, options.onData);
}

/**
 * The helper runs at nice 10: where it shares the CPUs with its target it yields to it, and the
 * runtime's EventPipe then hands it bigger batches (fewer buffer hand-overs per event: the PERF
 * note over ep_buffer_manager_get_next_event in dotnet/runtime src/native/eventpipe/
 * ep-buffer-manager.c). Measured with the lab program throwing 1,000/s inside CPU-bound work on
 * 2 loaded cores: the target kept 85 % of its unwatched throughput instead of 30-35 %
 * (docs/watch-dotnet-linux.md). A failure (not allowed to) leaves it as it is.
 */
function lowerPriority(pid: number | undefined, env: NodeJS.ProcessEnv = process.env): void {
  const nice = Number(env['CDB_HARNESS_DIAG_NICE'] ?? HELPER_NICE);
  if (pid === undefined || !Number.isInteger(nice) || nice <= 0 || nice > 19) return;
  try {
    setPriority(pid, nice);
  } catch {
    // another user's rules: the helper runs at our priority
  }
}
