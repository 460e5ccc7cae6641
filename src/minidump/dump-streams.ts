// The streams of one open dump, as its directory lists them: each parsed on first use and kept,
// through one guard (a stream that cannot be parsed becomes a warning and an empty answer; only
// I/O failures and aborts go up), with the bookkeeping every parser shares: the warning log, what
// the file references past its end, the strings already read, and the budget of referenced bytes
// (read-limits.ts).
import { BadDumpError, isHarnessError } from '../errors.js';
import type { WarningLog } from '../warning-log.js';
import type { StreamInfo } from './directory.js';
import type { PositionedFileReader } from './file-reader.js';
import { MAX_REFERENCED_BYTES, MAX_STREAM_BYTES, streamReadLength } from './read-limits.js';
import type { StreamContext } from './stream-context.js';
import { readMinidumpString, readMinidumpStringNow, type StringResult } from './strings.js';

export class DumpStreams {
  readonly #reader: PositionedFileReader;
  readonly #streams: readonly StreamInfo[];
  readonly #warnings: WarningLog;
  /** What the file references past its end, by what it is (`ModuleList strings`), counted. */
  readonly #pastEnd = new Map<string, number>();
  /** Strings read so far, by RVA (hundreds of entries often share one name). */
  readonly #strings = new Map<number, string>();
  #referencedBytes = 0;
  readonly #cache = new Map<string, Promise<unknown>>();
  /** Parsed streams by type (a number key: no `stream:N` text made per call). */
  readonly #parsed = new Map<number, Promise<unknown>>();
  /** The stream contexts' functions that are the same for every stream, made once a dump. */
  readonly #warn: StreamContext['warn'];
  readonly #read: StreamContext['read'];
  readonly #follow: StreamContext['followReference'];
  readonly #held: NonNullable<StreamContext['heldBytes']>;

  constructor(reader: PositionedFileReader, streams: StreamInfo[], warnings: WarningLog) {
    this.#reader = reader;
    this.#streams = streams;
    this.#warnings = warnings;
    // Made as locals, then stored: a function literal assigned straight to a property is
    // allocated in V8's old space (eslint.config.js, noFunctionLiteralIntoProperty), and an old
    // closure would keep this dump's streams alive through every scavenge of the batch.
    const warn: StreamContext['warn'] = (message, kind) => this.#warnings.add(message, kind);
    const read: StreamContext['read'] = (offset, n) => this.#reader.read(offset, n);
    const follow: StreamContext['followReference'] = (bytes) => this.#spend(bytes);
    const held: NonNullable<StreamContext['heldBytes']> = () => this.#reader.heldBytes();
    this.#warn = warn;
    this.#held = held;
    this.#read = read;
    this.#follow = follow;
  }

  /** Every non-padding directory entry, in directory order (copies). */
  list(): StreamInfo[] {
    return this.#streams.map((s) => ({ ...s }));
  }

  /** The first directory entry of `type`. */
  find(type: number): StreamInfo | undefined {
    return this.#streams.find((s) => s.type === type);
  }

  warn(message: string, kind?: string): void {
    this.#warnings.add(message, kind);
  }

  warnings(): string[] {
    return this.#warnings.list();
  }

  /** What the file references beyond its end so far, truncated streams included. */
  pastEnd(): ReadonlyMap<string, number> {
    for (const s of this.#streams) {
      if (s.truncated) this.#pastEnd.set(`${s.name} stream`, 1);
    }
    return this.#pastEnd;
  }

  /** Counts `count` more of `what` past the end of the file. */
  notePastEnd(what: string, count = 1): void {
    this.#pastEnd.set(what, (this.#pastEnd.get(what) ?? 0) + count);
  }

  /** `load()` once per key; every later call gets the same promise. */
  once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let cached = this.#cache.get(key) as Promise<T> | undefined;
    if (!cached) {
      cached = load();
      this.#cache.set(key, cached);
    }
    return cached;
  }

  /** The first stream of `type`, parsed once (`fallback` without one, or when it is malformed). */
  parse<T>(
    type: number,
    fallback: T,
    parse: (ctx: StreamContext) => T | Promise<T>,
    maxBytes = MAX_STREAM_BYTES,
  ): Promise<T> {
    let cached = this.#parsed.get(type) as Promise<T> | undefined;
    if (cached === undefined) {
      const info = this.find(type);
      cached = info ? this.guard(info, fallback, parse, maxBytes) : Promise.resolve(fallback);
      this.#parsed.set(type, cached);
    }
    return cached;
  }

  /** Runs one stream parser; a malformed stream becomes a warning and `fallback`. */
  async guard<T>(
    info: StreamInfo,
    fallback: T,
    parse: (ctx: StreamContext) => T | Promise<T>,
    maxBytes = MAX_STREAM_BYTES,
  ): Promise<T> {
    try {
      return await parse(await this.#context(info, maxBytes));
    } catch (error) {
      // I/O failures and aborts are the caller's business; anything else is a malformed stream.
      if (isHarnessError(error) && !(error instanceof BadDumpError)) throw error;
      this.#warnings.add(
        `${info.name}: unreadable (${error instanceof Error ? error.message : String(error)})`,
      );
      return fallback;
    }
  }

  /** Takes `bytes` from the dump's budget for followed references; false once it is spent. */
  #spend(bytes: number): boolean {
    if (this.#referencedBytes + bytes > MAX_REFERENCED_BYTES) {
      this.#warnings.add(
        `the dump references more than ${MAX_REFERENCED_BYTES} bytes of strings and CodeView records; the rest are not read`,
        'referenced-bytes budget',
      );
      return false;
    }
    this.#referencedBytes += bytes;
    return true;
  }

  async #context(info: StreamInfo, maxBytes: number): Promise<StreamContext> {
    const fileSize = this.#reader.size;
    const { length, implausible } = streamReadLength(info, fileSize, maxBytes);
    if (implausible) {
      this.#warnings.add(
        `${info.name}: ${info.size}-byte stream is implausibly large; only the first ${MAX_STREAM_BYTES} bytes are read`,
      );
    }
    const data = await this.#reader.read(info.rva, length);
    const warn = this.#warn;
    const read = this.#read;
    const follow = this.#follow;
    const pastEnd = (what: string) => this.notePastEnd(`${info.name} ${what}`);
    return {
      file: this.#reader.path,
      fileSize,
      info,
      data,
      warn,
      read,
      pastEnd,
      followReference: follow,
      heldBytes: this.#held,
      readString: (rva, what) => {
        const known = this.#strings.get(rva);
        if (known !== undefined) {
          // Counted again: what a dump costs is what it produces. A hostile list whose 16,384
          // names all point at one 64 KB string is read once but would be 1 GB of names.
          // (The budget's own warning says so when it refuses.)
          return follow(known.length * 2) ? known : null;
        }
        if (rva !== 0 && rva + 4 > fileSize) {
          pastEnd('strings');
          return null;
        }
        const whole = this.#reader.heldBytes();
        if (whole === undefined) {
          return readMinidumpString(read, rva, fileSize, follow).then((result) =>
            this.#stringRead(result, rva, what, info, pastEnd),
          );
        }
        return this.#stringRead(
          readMinidumpStringNow(whole, rva, follow),
          rva,
          what,
          info,
          pastEnd,
        );
      },
    };
  }

  /** A string read's answer: kept by RVA, or a warning (or a count past the end) and null. */
  #stringRead(
    result: StringResult,
    rva: number,
    what: string,
    info: StreamInfo,
    pastEnd: (what: string) => void,
  ): string | null {
    if (result.ok) {
      this.#strings.set(rva, result.value);
      return result.value;
    }
    if (result.pastEnd === true) pastEnd('strings');
    else this.#warnings.add(`${info.name}: ${what}: ${result.reason}`);
    return null;
  }
}
