// What every reader in src/symbols reads through: positioned reads handed in by the caller (a
// PositionedFileReader over a file on disk, or a Buffer already in memory after a download).
// The leaf never opens a file itself, so it can be tested on bytes and measured by what it read.

export interface ByteSource {
  readonly size: number;
  /** Up to `length` bytes at `offset`; fewer only when the source ends first. */
  read(offset: number, length: number): Promise<Buffer>;
}

/** A source over bytes already in memory. */
export class BufferSource implements ByteSource {
  readonly #bytes: Buffer;
  bytesRead = 0;
  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }
  get size(): number {
    return this.#bytes.length;
  }
  read(offset: number, length: number): Promise<Buffer> {
    const part = this.#bytes.subarray(offset, Math.min(this.#bytes.length, offset + length));
    this.bytesRead += part.length;
    return Promise.resolve(part);
  }
}
