// The symbol files a batch keeps open between dumps, within a budget of page-cache bytes: past
// it the least recently used file that no read holds is closed, and the symbolizer forgets its
// module (opened again when a later dump meets it). A batch over thousands of different builds
// so holds neither thousands of descriptors nor their caches (docs/symbols.md, "Bounds").
import type { PositionedFileReader } from '../../minidump/file-reader.js';

interface OpenFile {
  reader: PositionedFileReader;
  cacheBytes: number;
}

export class OpenSymbolFiles {
  readonly #maxBytes: number;
  /** Told the module key of each file closed to make room. */
  readonly #onEvict: (key: string) => void;
  /** By module identity key; Map order is least recently used first. */
  readonly #files = new Map<string, OpenFile>();
  #bytes = 0;
  /**
   * Reads under way, by key, counted from before the module's load is awaited: a file a read is
   * waiting for is never the one closed to make room.
   */
  readonly #held = new Map<string, number>();
  /** Closes still under way (closeAll() waits for them). */
  readonly #closing = new Set<Promise<void>>();

  constructor(maxBytes: number, onEvict: (key: string) => void) {
    this.#maxBytes = maxBytes;
    this.#onEvict = onEvict;
  }

  /** Files open now. */
  get size(): number {
    return this.#files.size;
  }

  /** False while files past the budget wait for their readers to finish before they close. */
  get withinBudget(): boolean {
    return this.#bytes <= this.#maxBytes || this.#files.size <= 1;
  }

  /** A read of `key`'s file begins (before its load is awaited). */
  hold(key: string): void {
    this.#held.set(key, (this.#held.get(key) ?? 0) + 1);
    const open = this.#files.get(key);
    if (open !== undefined) {
      // Most recently used last.
      this.#files.delete(key);
      this.#files.set(key, open);
    }
  }

  /**
   * A read of `key`'s file that ends before anything else runs (a synchronous read of data
   * already in memory): what hold() then release() do, without a promise, when the budget holds.
   * False when the batch is past its budget (a file held earlier is still to close): the caller
   * then reads through hold/release, which closes it.
   */
  touch(key: string): boolean {
    if (!this.withinBudget) return false;
    const open = this.#files.get(key);
    if (open !== undefined) {
      this.#files.delete(key);
      this.#files.set(key, open);
    }
    return true;
  }

  /** That read ended; files past the budget are closed (settles when they are). */
  async release(key: string): Promise<void> {
    const left = (this.#held.get(key) ?? 1) - 1;
    if (left === 0) this.#held.delete(key);
    else this.#held.set(key, left);
    // Only past the budget: a lookup per frame otherwise paid an async call for nothing.
    if (this.#bytes > this.#maxBytes && this.#files.size > 1) await this.#closePastBudget();
  }

  /** Keeps `reader` open for the module `key` names, within the budget. */
  async keep(key: string, reader: PositionedFileReader, cacheBytes: number): Promise<void> {
    this.#files.set(key, { reader, cacheBytes });
    this.#bytes += cacheBytes;
    await this.#closePastBudget();
  }

  async closeAll(): Promise<void> {
    const open = [...this.#files.values()].map((f) => f.reader.close());
    this.#files.clear();
    this.#bytes = 0;
    await Promise.all([...open, ...this.#closing]);
  }

  async #closePastBudget(): Promise<void> {
    const closes: Promise<void>[] = [];
    for (const [key, open] of this.#files) {
      // The most recently used file stays, whatever the budget: it is the one just asked for.
      if (this.#bytes <= this.#maxBytes || this.#files.size <= 1) break;
      if (this.#held.has(key)) continue;
      this.#files.delete(key);
      this.#onEvict(key);
      this.#bytes -= open.cacheBytes;
      const closing = open.reader.close().finally(() => this.#closing.delete(closing));
      this.#closing.add(closing);
      closes.push(closing);
    }
    await Promise.all(closes);
  }
}
