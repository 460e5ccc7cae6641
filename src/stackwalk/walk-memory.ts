// The target's memory as one walk sees it: pointer-sized reads with a read budget (the leaf has
// no clock, so "a time budget per thread" is a count of reads the caller sizes), and a small
// cache of 512-byte lines so a scan or an unwind that touches neighbouring words reads once.
// Every read has a synchronous form (`…Now`) that answers when no read has to wait (the line is
// cached, or the memory answers at once: TargetMemory.readNow) with exactly the answer and the
// budget spent of the asynchronous form, and `undefined` otherwise, having spent nothing more
// than the asynchronous form would have spent by then: a walk pays a promise only for a read
// that waits. Lines are keyed by numbers below 2^53 (exact doubles; every user-mode address),
// so a cached read does no BigInt arithmetic.
import type { TargetMemory } from './types.js';

const LINE = 512;
/**
 * Code addresses a walk reads for call checks, as a share of its read budget (a budget of their
 * own, so a walk that can check code reads as much stack as one that cannot); past it a scanned
 * word counts as unchecked.
 */
export const CODE_READ_SHARE = 4;
const LAST_ADDRESS = 0xffff_ffff_ffff_ffffn;
/** Addresses below this are exact as numbers (2^53, a multiple of LINE). */
const EXACT = 0x20_0000_0000_0000n;

interface Line {
  bytes: Uint8Array;
  view: DataView;
}

export class WalkMemory {
  readonly #memory: TargetMemory;
  /** By line start: a number below 2^53, else a bigint (the two never name the same line). */
  readonly #lines = new Map<number | bigint, Line | null>();
  #reads = 0;
  readonly #maxReads: number;
  /** Set once the budget ran out: every later read answers null. */
  exhausted = false;
  /**
   * Code bytes read for scanned words' call checks, by address: a budget of their own (a walk
   * that checks code reads the stack as far as one that cannot), and each address read once.
   */
  readonly #code = new Map<bigint, Uint8Array | null>();
  readonly #maxCodeReads: number;

  constructor(memory: TargetMemory, maxReads: number) {
    this.#memory = memory;
    this.#maxReads = maxReads;
    this.#maxCodeReads = Math.floor(maxReads / CODE_READ_SHARE);
  }

  /**
   * `length` bytes of code at `address` when the target's memory holds them (null when not, or
   * once the code reads' share of the budget is spent), answered without waiting when it can be
   * (undefined: ask `code`).
   */
  codeNow(address: bigint, length: number): Uint8Array | null | undefined {
    const known = this.#code.get(address);
    if (known !== undefined) return known;
    if (this.#code.size >= this.#maxCodeReads) return null;
    if (this.#memory.readNow === undefined || address < 0n) return undefined;
    const bytes = this.#memory.readNow(address, length);
    if (bytes === undefined) return undefined;
    return this.#keepCode(address, length, bytes);
  }

  async code(address: bigint, length: number): Promise<Uint8Array | null> {
    const now = this.codeNow(address, length);
    if (now !== undefined) return now;
    if (address < 0n) return null;
    return this.#keepCode(address, length, await this.#memory.read(address, length));
  }

  #keepCode(address: bigint, length: number, bytes: Uint8Array | null): Uint8Array | null {
    // A copy: a view would keep the reader's whole page alive.
    const kept = bytes !== null && bytes.length >= length ? bytes.slice(0, length) : null;
    this.#code.set(address, kept);
    return kept;
  }

  get reads(): number {
    return this.#reads;
  }

  async u64(address: bigint): Promise<bigint | null> {
    const now = this.u64Now(address);
    if (now !== undefined) return now;
    const bytes = await this.#bytes(address, 8);
    if (bytes === null) return null;
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  }

  async u32(address: bigint): Promise<bigint | null> {
    const now = this.u32Now(address);
    if (now !== undefined) return now;
    const bytes = await this.#bytes(address, 4);
    if (bytes === null) return null;
    return BigInt(new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true));
  }

  async word(address: bigint, size: 4 | 8): Promise<bigint | null> {
    return size === 8 ? this.u64(address) : this.u32(address);
  }

  /** u64() when it can answer without waiting; undefined when a read must wait. */
  u64Now(address: bigint): bigint | null | undefined {
    const line = this.#cachedLine(address, 8);
    if (line !== undefined) return line.view.getBigUint64(Number(address) % LINE, true);
    const bytes = this.bytesNow(address, 8);
    if (bytes === undefined || bytes === null) return bytes;
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  }

  /** u32() when it can answer without waiting; undefined when a read must wait. */
  u32Now(address: bigint): bigint | null | undefined {
    const cached = this.cachedU32(address);
    if (cached !== undefined) return BigInt(cached);
    const bytes = this.bytesNow(address, 4);
    if (bytes === undefined || bytes === null) return bytes;
    return BigInt(new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true));
  }

  /**
   * The u32 at `address` when its 512-byte line is already cached and holds it; undefined
   * otherwise (then ask `bytes`). Reads nothing and spends no budget: `bytes` would answer the
   * same from the cache, but a CONTEXT-record probe asks this for ~17 candidate starts per
   * scanned word, and each answer through `bytes` cost a view and a promise.
   */
  cachedU32(address: bigint): number | undefined {
    const line = this.#cachedLine(address, 4);
    return line?.view.getUint32(Number(address) % LINE, true);
  }

  /** cachedU32 of an address given as a number below 2^53 (a loop's own arithmetic). */
  cachedU32At(address: number): number | undefined {
    if (!(address >= 0 && address < 2 ** 53)) return undefined;
    const offset = address % LINE;
    if (offset + 4 > LINE) return undefined;
    const line = this.#lines.get(address - offset);
    if (line === undefined || line === null || offset + 4 > line.bytes.length) return undefined;
    return line.view.getUint32(offset, true);
  }

  /** `length` (≤ 512) bytes at `address`, or null when any of them was not captured. */
  bytes(address: bigint, length: number): Promise<Uint8Array | null> {
    const now = this.bytesNow(address, length);
    return now !== undefined ? Promise.resolve(now) : this.#bytes(address, length);
  }

  /**
   * bytes() when it can answer without waiting: from a cached line, or from memory that answers
   * at once (TargetMemory.readNow). undefined when a read must wait; the budget is then spent
   * exactly as far as bytes() would have spent it before waiting (a line read that answered).
   */
  bytesNow(address: bigint, length: number): Uint8Array | null | undefined {
    if (address < 0n) return null;
    let line: number | bigint;
    let offset: number;
    if (address < EXACT) {
      const at = Number(address);
      offset = at % LINE;
      line = at - offset;
    } else {
      if (address > LAST_ADDRESS - BigInt(length)) return null;
      const rest = address % BigInt(LINE);
      offset = Number(rest);
      line = address - rest;
    }
    if (offset + length <= LINE) {
      let cached = this.#lines.get(line);
      if (cached === undefined) {
        if (this.#memory.readNow === undefined) return undefined;
        if (this.#reads >= this.#maxReads) {
          this.exhausted = true;
          return null; // bytes() would find the budget spent for the line and the direct read
        }
        const bytes = this.#memory.readNow(BigInt(line), LINE);
        if (bytes === undefined) return undefined;
        this.#reads++;
        cached = this.#store(line, bytes);
      }
      if (cached !== null && cached.bytes.length >= offset + length) {
        return cached.bytes.subarray(offset, offset + length);
      }
    }
    // Across two lines, or a line whose start was not captured (stacks are captured from the
    // stack pointer up, rarely line-aligned): read exactly what was asked.
    if (this.#memory.readNow === undefined) return undefined;
    if (this.#reads >= this.#maxReads) {
      this.exhausted = true;
      return null;
    }
    const bytes = this.#memory.readNow(address, length);
    if (bytes === undefined) return undefined;
    this.#reads++;
    return bytes !== null && bytes.length >= length ? bytes : null;
  }

  /** The cached line holding all of [address, address + length), or undefined. */
  #cachedLine(address: bigint, length: number): Line | undefined {
    if (!(address >= 0n && address < EXACT)) return undefined;
    const at = Number(address);
    const offset = at % LINE;
    if (offset + length > LINE) return undefined;
    const line = this.#lines.get(at - offset);
    if (line === undefined || line === null || offset + length > line.bytes.length) {
      return undefined;
    }
    return line;
  }

  /** The asynchronous path: what bytesNow could not answer (the cache is as it left it). */
  async #bytes(address: bigint, length: number): Promise<Uint8Array | null> {
    if (address < 0n || address > LAST_ADDRESS - BigInt(length)) return null;
    const rest = address % BigInt(LINE);
    const offset = Number(rest);
    if (offset + length <= LINE) {
      const start = address - rest;
      const line = await this.#line(start < EXACT ? Number(start) : start);
      if (line !== null && line.bytes.length >= offset + length) {
        return line.bytes.subarray(offset, offset + length);
      }
    }
    return this.#direct(address, length);
  }

  async #direct(address: bigint, length: number): Promise<Uint8Array | null> {
    if (!this.#spend()) return null;
    const bytes = await this.#memory.read(address, length);
    return bytes !== null && bytes.length >= length ? bytes : null;
  }

  #spend(): boolean {
    if (this.#reads >= this.#maxReads) {
      this.exhausted = true;
      return false;
    }
    this.#reads++;
    return true;
  }

  async #line(line: number | bigint): Promise<Line | null> {
    const cached = this.#lines.get(line);
    if (cached !== undefined) return cached;
    if (!this.#spend()) return null;
    const bytes = await this.#memory.read(BigInt(line), LINE);
    return this.#store(line, bytes);
  }

  #store(line: number | bigint, bytes: Uint8Array | null): Line | null {
    const usable =
      bytes !== null && bytes.length > 0
        ? { bytes, view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) }
        : null;
    this.#lines.set(line, usable);
    return usable;
  }
}
