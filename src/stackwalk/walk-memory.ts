// The target's memory as one walk sees it: pointer-sized reads with a read budget (the leaf has
// no clock, so "a time budget per thread" is a count of reads the caller sizes), and a small
// cache of 512-byte lines so a scan or an unwind that touches neighbouring words reads once.
import type { TargetMemory } from './types.js';

const LINE = 512n;
const LAST_ADDRESS = 0xffff_ffff_ffff_ffffn;

export class WalkMemory {
  readonly #memory: TargetMemory;
  readonly #lines = new Map<bigint, Uint8Array | null>();
  #reads = 0;
  readonly #maxReads: number;
  /** Set once the budget ran out: every later read answers null. */
  exhausted = false;

  constructor(memory: TargetMemory, maxReads: number) {
    this.#memory = memory;
    this.#maxReads = maxReads;
  }

  get reads(): number {
    return this.#reads;
  }

  async u64(address: bigint): Promise<bigint | null> {
    // From a cached line without a view of it (an unwind reads a few words per frame); the same
    // answer bytes() gives, and like it no budget spent for a line already read.
    const lo = this.cachedU32(address);
    if (lo !== undefined && address % LINE <= LINE - 8n && address <= LAST_ADDRESS - 8n) {
      const hi = this.cachedU32(address + 4n);
      if (hi !== undefined) return (BigInt(hi) << 32n) | BigInt(lo);
    }
    const bytes = await this.bytes(address, 8);
    if (bytes === null) return null;
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  }

  async u32(address: bigint): Promise<bigint | null> {
    const cached = this.cachedU32(address);
    if (cached !== undefined) return BigInt(cached);
    const bytes = await this.bytes(address, 4);
    if (bytes === null) return null;
    return BigInt(new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true));
  }

  async word(address: bigint, size: 4 | 8): Promise<bigint | null> {
    return size === 8 ? this.u64(address) : this.u32(address);
  }

  /**
   * The u32 at `address` when its 512-byte line is already cached and holds it; undefined
   * otherwise (then ask `bytes`). Reads nothing and spends no budget: `bytes` would answer the
   * same from the cache, but a CONTEXT-record probe asks this for ~17 candidate starts per
   * scanned word, and each answer through `bytes` cost a view and a promise.
   */
  cachedU32(address: bigint): number | undefined {
    // bytes() refuses a read running past 2^64 - 1; so does this.
    if (address < 0n || address > LAST_ADDRESS - 4n) return undefined;
    const line = address - (address % LINE);
    const offset = Number(address - line);
    const bytes = this.#lines.get(line);
    if (bytes === undefined || bytes === null || offset + 4 > bytes.length) return undefined;
    return (
      ((bytes[offset] ?? 0) |
        ((bytes[offset + 1] ?? 0) << 8) |
        ((bytes[offset + 2] ?? 0) << 16) |
        ((bytes[offset + 3] ?? 0) << 24)) >>>
      0
    );
  }

  /** `length` (≤ 512) bytes at `address`, or null when any of them was not captured. */
  async bytes(address: bigint, length: number): Promise<Uint8Array | null> {
    if (address < 0n || address > LAST_ADDRESS - BigInt(length)) return null;
    const line = address - (address % LINE);
    const offset = Number(address - line);
    if (offset + length <= Number(LINE)) {
      const bytes = await this.#line(line);
      if (bytes !== null && bytes.length >= offset + length) {
        return bytes.subarray(offset, offset + length);
      }
    }
    // Across two lines, or a line whose start was not captured (stacks are captured from the
    // stack pointer up, rarely line-aligned): read exactly what was asked.
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

  async #line(line: bigint): Promise<Uint8Array | null> {
    if (this.#lines.has(line)) return this.#lines.get(line) ?? null;
    if (!this.#spend()) return null;
    const bytes = await this.#memory.read(line, Number(LINE));
    const usable = bytes !== null && bytes.length > 0 ? bytes : null;
    this.#lines.set(line, usable);
    return usable;
  }
}
