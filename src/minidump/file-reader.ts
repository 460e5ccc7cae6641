// Positioned reads from a dump file through one FileHandle, with a small LRU page cache for the
// many tiny structure reads (strings, records) and direct reads for anything page-sized or more.
// A full dump can be tens of GB, so nothing here ever reads the whole file; `bytesRead` counts
// what really came off the disk so callers (and the benchmark) can hold us to that.
import { constants, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { AbortedError, failureCause, IoError } from '../errors.js';

export interface FileReaderOptions {
  /** Bytes of small-read cache (default 1 MiB). 0 disables caching. */
  cacheBytes?: number;
  /** Cache page size in bytes (default 4 KiB); reads of at least this many bytes bypass the cache. */
  pageSize?: number;
  signal?: AbortSignal;
  /**
   * The whole file, when the caller already read it (a batch hashes every dump first): reads are
   * served from it and the file is not opened again. Its length is the file's size.
   */
  bytes?: Buffer;
}

const DEFAULT_CACHE_BYTES = 1 << 20;
const DEFAULT_PAGE_SIZE = 4096;

export class PositionedFileReader {
  readonly path: string;
  readonly size: number;
  #handle: FileHandle | undefined;
  #bytesRead = 0;
  #reads = 0;
  readonly #pageSize: number;
  readonly #maxPages: number;
  /** Map order is the LRU order: a hit is deleted and re-inserted at the end. */
  readonly #pages = new Map<number, Promise<Buffer>>();
  readonly #signal: AbortSignal | undefined;
  /** The whole file in memory (options.bytes): no handle, no page cache. */
  #bytes: Buffer | undefined;

  private constructor(
    path: string,
    handle: FileHandle | undefined,
    size: number,
    options: FileReaderOptions,
  ) {
    this.path = path;
    this.#handle = handle;
    this.#bytes = options.bytes;
    if (options.bytes !== undefined) this.#bytesRead = options.bytes.length;
    this.size = size;
    this.#pageSize = Math.max(512, options.pageSize ?? DEFAULT_PAGE_SIZE);
    this.#maxPages = Math.floor(
      Math.max(0, options.cacheBytes ?? DEFAULT_CACHE_BYTES) / this.#pageSize,
    );
    this.#signal = options.signal;
  }

  /** `path` as text or, for a name that is not valid UTF-8, as its bytes (`this.path` is text). */
  static async open(
    path: string | Buffer,
    options: FileReaderOptions = {},
  ): Promise<PositionedFileReader> {
    const shown = path.toString();
    if (options.signal?.aborted === true) {
      throw new AbortedError(`opening ${shown} was aborted`, { cause: options.signal.reason });
    }
    if (options.bytes !== undefined) {
      return new PositionedFileReader(shown, undefined, options.bytes.length, options);
    }
    const { handle, size } = await openRegularFile(path);
    return new PositionedFileReader(shown, handle, size, options);
  }

  /** Reads shorter than this are served from (and share memory with) the page cache. */
  get pageSize(): number {
    // Every read of a file held in memory is a view of it.
    return this.#bytes === undefined ? this.#pageSize : Number.MAX_SAFE_INTEGER;
  }

  /**
   * The whole file, when it is held in memory (FileReaderOptions.bytes) and no abort was asked
   * for: a caller may then read it without a promise a read. Not to be written to.
   */
  heldBytes(): Buffer | undefined {
    return this.#signal?.aborted === true ? undefined : this.#bytes;
  }

  /** Bytes actually read from the file so far (cache hits cost nothing). */
  get bytesRead(): number {
    return this.#bytesRead;
  }

  /** Number of read calls that reached the file. */
  get readCalls(): number {
    return this.#reads;
  }

  /**
   * Up to `length` bytes at `offset`; fewer when the file ends first (an empty Buffer past the
   * end). Callers check ranges against `size` before asking, so a short read means truncation.
   */
  read(offset: number, length: number): Promise<Buffer> {
    if (
      !Number.isSafeInteger(offset) ||
      offset < 0 ||
      !Number.isSafeInteger(length) ||
      length < 0
    ) {
      return Promise.reject(new RangeError(`bad read ${offset}+${length}`));
    }
    const end = Math.min(this.size, offset + length);
    if (end <= offset) return Promise.resolve(Buffer.alloc(0));
    const bytes = this.#bytes;
    if (bytes !== undefined) {
      if (this.#signal?.aborted === true) {
        return Promise.reject(
          new AbortedError(`reading ${this.path} was aborted`, { cause: this.#signal.reason }),
        );
      }
      return Promise.resolve(bytes.subarray(offset, end));
    }
    if (end - offset >= this.#pageSize || this.#maxPages === 0) {
      return this.#readDirect(offset, end - offset);
    }
    return this.#readCached(offset, end);
  }

  async #readCached(offset: number, end: number): Promise<Buffer> {
    const first = Math.floor(offset / this.#pageSize);
    const last = Math.floor((end - 1) / this.#pageSize);
    if (first === last) {
      const page = await this.#page(first);
      const start = offset - first * this.#pageSize;
      return page.subarray(start, start + (end - offset));
    }
    const parts = await Promise.all([this.#page(first), this.#page(last)]);
    const out = Buffer.allocUnsafe(end - offset);
    const head = (first + 1) * this.#pageSize - offset;
    parts[0]?.copy(out, 0, offset - first * this.#pageSize);
    parts[1]?.copy(out, head, 0, end - offset - head);
    return out;
  }

  async close(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    this.#bytes = undefined;
    this.#pages.clear();
    await handle?.close();
  }

  #page(index: number): Promise<Buffer> {
    const cached = this.#pages.get(index);
    if (cached) {
      this.#pages.delete(index);
      this.#pages.set(index, cached);
      return cached;
    }
    const start = index * this.#pageSize;
    const loading = this.#readDirect(start, Math.min(this.#pageSize, this.size - start));
    this.#pages.set(index, loading);
    // A failed read must not stay cached: the next caller should see the error afresh.
    loading.catch(() => this.#pages.delete(index));
    while (this.#pages.size > this.#maxPages) {
      const oldest = this.#pages.keys().next();
      if (oldest.done === true) break;
      this.#pages.delete(oldest.value);
    }
    return loading;
  }

  async #readDirect(offset: number, length: number): Promise<Buffer> {
    if (this.#signal?.aborted === true) {
      throw new AbortedError(`reading ${this.path} was aborted`, { cause: this.#signal.reason });
    }
    const handle = this.#handle;
    if (!handle) throw new IoError(`${this.path} is already closed`);
    const buffer = Buffer.allocUnsafe(length);
    let done = 0;
    try {
      while (done < length) {
        const { bytesRead } = await handle.read(buffer, done, length - done, offset + done);
        this.#reads++;
        if (bytesRead === 0) break; // the file shrank under us: hand back what there is
        done += bytesRead;
      }
    } catch (error) {
      throw new IoError(
        `cannot read ${length} bytes at ${offset} of ${this.path}: ${failureCause(error)}`,
        {
          cause: error,
        },
      );
    }
    this.#bytesRead += done;
    return done === length ? buffer : buffer.subarray(0, done);
  }
}

/**
 * Opens a file for reading only if it is a regular file; anything else is refused at once with an
 * IoError naming what it is. Looked at before it is opened: opening a FIFO blocks until a writer
 * comes (for good, with none), and /dev/zero or /dev/urandom never end. O_NONBLOCK covers a FIFO
 * swapped in between the two calls (fstat then refuses it).
 */
export async function openRegularFile(
  path: string | Buffer,
): Promise<{ handle: FileHandle; size: number }> {
  const shown = path.toString();
  const kind = await stat(path).then(fileKind, () => 'missing');
  if (kind !== 'regular file' && kind !== 'missing') {
    throw new IoError(`${shown} is not a regular file (${kind}); refused without reading it`);
  }
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | NON_BLOCKING);
  } catch (error) {
    throw new IoError(`cannot open ${shown}: ${failureCause(error)}`, { cause: error });
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new IoError(
        `${shown} is not a regular file (${fileKind(info)}); refused without reading it`,
      );
    }
    return { handle, size: info.size };
  } catch (error) {
    await handle.close();
    if (error instanceof IoError) throw error;
    throw new IoError(`cannot stat ${shown}: ${failureCause(error)}`, { cause: error });
  }
}

/** Not defined on Windows, where no FIFO can block an open. */
const NON_BLOCKING = (constants.O_NONBLOCK as number | undefined) ?? 0;

/** What a path is, in words for messages: `regular file`, `FIFO`, `character device`… */
export function fileKind(info: Stats): string {
  if (info.isFile()) return 'regular file';
  if (info.isDirectory()) return 'directory';
  if (info.isFIFO()) return 'FIFO';
  if (info.isCharacterDevice()) return 'character device';
  if (info.isBlockDevice()) return 'block device';
  if (info.isSocket()) return 'socket';
  return 'special file';
}
