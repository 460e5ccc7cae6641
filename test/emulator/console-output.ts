// Everything the emulator prints goes through here: CRLF line ends (a Windows console), optional
// ConPTY-style VT decoration, and the output faults that are about bytes rather than words (split
// at random byte boundaries, slow output). One writer at a time: writes are queued in order.
import { setTimeout as sleep } from 'node:timers/promises';
import { random as seededRandom } from '../helpers/dump-mutations.js';
import type { ChunkSpec, ConsoleSpec } from './scenario.js';

/*
 * VT sequences a ConPTY renderer puts around console text (node-pty #137: cursor moves, clear-line,
 * show/hide cursor). Modelled on what ConPTY emits, not captured byte for byte: the exact set
 * varies between Windows builds. Their job here is to make the engine's VT stripping do real work.
 */
const VT_SESSION_START =
  '\x1b[?25l\x1b[2J\x1b[m\x1b[H\x1b]0;C:\\Debuggers\\x64\\cdb.exe\x07\x1b[?25h';
const VT_HIDE_CURSOR = '\x1b[?25l';
const VT_SHOW_CURSOR = '\x1b[?25h';
const VT_ERASE_TO_EOL = '\x1b[K';

export interface WriteOptions {
  chunk?: ChunkSpec | undefined;
  chunkDelayMs?: number | undefined;
}

export interface OutputSink {
  write(data: Buffer): void;
}

export class ConsoleOutput {
  private queue: Promise<void> = Promise.resolve();
  private readonly random: () => number;
  private readonly abort = new AbortController();

  constructor(
    private readonly sink: OutputSink,
    private readonly spec: ConsoleSpec,
  ) {
    this.random = seededRandom(spec.chunk?.seed ?? 1);
  }

  /** Start-of-session decoration (the screen clear and title a ConPTY sends first). */
  start(): Promise<void> {
    return this.spec.vt === true ? this.raw(VT_SESSION_START) : Promise.resolve();
  }

  /** Print text; `\n` becomes CRLF. Resolves when the last byte has been handed to the tty. */
  write(text: string, options: WriteOptions = {}): Promise<void> {
    return this.raw(this.decorate(toCrlf(text)), options);
  }

  /** Print whole lines (each ends with CRLF). */
  lines(lines: readonly string[], options: WriteOptions = {}): Promise<void> {
    if (lines.length === 0) return this.queue;
    return this.write(lines.map((l) => `${l}\n`).join(''), options);
  }

  /** Stop every pending and future write: the process is about to exit. */
  close(): void {
    this.abort.abort();
  }

  /** Bytes as given, through the chunking fault, in order with every other write. */
  raw(text: string, options: WriteOptions = {}): Promise<void> {
    const next = this.queue.then(() => this.emit(Buffer.from(text, 'utf8'), options));
    // One failed or aborted write must not wedge everything queued behind it.
    this.queue = next.catch(() => undefined);
    return next;
  }

  private decorate(text: string): string {
    if (this.spec.vt !== true) return text;
    return VT_HIDE_CURSOR + text.replace(/\r\n/g, `${VT_ERASE_TO_EOL}\r\n`) + VT_SHOW_CURSOR;
  }

  private async emit(bytes: Buffer, options: WriteOptions): Promise<void> {
    const signal = this.abort.signal;
    if (signal.aborted) return;
    const chunk = options.chunk ?? this.spec.chunk;
    const delayMs = options.chunkDelayMs ?? this.spec.chunkDelayMs ?? 0;
    if (chunk === undefined && delayMs <= 0) {
      this.sink.write(bytes);
      return;
    }
    const random = options.chunk === undefined ? this.random : seededRandom(options.chunk.seed);
    const min = chunk?.min ?? 1;
    const max = chunk?.max ?? 16;
    let offset = 0;
    while (offset < bytes.length) {
      if (signal.aborted) return;
      const size = min + Math.floor(random() * (max - min + 1));
      this.sink.write(bytes.subarray(offset, offset + size));
      offset += size;
      if (offset < bytes.length) {
        // Even without a delay, yield to the event loop so each piece leaves as its own read.
        await sleep(delayMs > 0 ? delayMs : 1, undefined, { signal }).catch(() => undefined);
      }
    }
  }
}

/** Lone `\n` -> `\r\n`; an existing `\r\n` stays as it is. */
export function toCrlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}
