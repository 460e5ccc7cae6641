// Hand-made x64 images and memory for unwinder unit tests: UNWIND_INFO bytes composed from the
// documented layout (https://learn.microsoft.com/en-us/cpp/build/exception-handling-x64: a
// 4-byte header `version | flags << 3, prolog size, code count, frame reg | offset << 4`, then
// 2-byte codes `code offset, op | info << 4`, padded to an even count, then an optional chained
// RUNTIME_FUNCTION), served through the walker's own ImageView interface.
import type { ImageView, TargetMemory } from '../../../src/stackwalk/types.js';

export interface FakeFunction {
  begin: number;
  end: number;
  unwindInfo: number;
}

export class FakeImage implements ImageView {
  readonly origin = 'test';
  readonly bytes: Uint8Array;
  readonly functions: FakeFunction[] = [];
  readonly codeStart: number;
  readonly codeEnd: number;

  constructor(size: number, code: { start: number; end: number } = { start: 0x1000, end: 0x8000 }) {
    this.bytes = new Uint8Array(size);
    this.codeStart = code.start;
    this.codeEnd = code.end;
  }

  readRva(rva: number, length: number): Promise<Uint8Array | null> {
    if (rva < 0 || rva >= this.bytes.length) return Promise.resolve(null);
    return Promise.resolve(this.bytes.subarray(rva, Math.min(this.bytes.length, rva + length)));
  }

  isExecutable(rva: number): boolean {
    return rva >= this.codeStart && rva < this.codeEnd;
  }

  runtimeFunction(rva: number): Promise<FakeFunction | null> {
    return Promise.resolve(this.functions.find((f) => rva >= f.begin && rva < f.end) ?? null);
  }

  /** Writes UNWIND_INFO at `at`; codes are [codeOffset, op, info, ...extra u16 slots]. */
  unwindInfo(
    at: number,
    info: {
      flags?: number;
      prolog?: number;
      frameReg?: number;
      frameOffset?: number;
      codes: number[][];
      chain?: FakeFunction;
    },
  ): number {
    const slots: number[] = [];
    for (const [offset, op, opInfo, ...extra] of info.codes) {
      slots.push((offset ?? 0) | (((op ?? 0) | ((opInfo ?? 0) << 4)) << 8));
      slots.push(...extra);
    }
    const b = this.bytes;
    b[at] = 1 | ((info.flags ?? 0) << 3);
    b[at + 1] = info.prolog ?? 0;
    b[at + 2] = slots.length;
    b[at + 3] = (info.frameReg ?? 0) | ((info.frameOffset ?? 0) << 4);
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    slots.forEach((s, i) => view.setUint16(at + 4 + i * 2, s, true));
    if (info.chain) {
      const chainAt = at + 4 + (slots.length + (slots.length & 1)) * 2;
      view.setUint32(chainAt, info.chain.begin, true);
      view.setUint32(chainAt + 4, info.chain.end, true);
      view.setUint32(chainAt + 8, info.chain.unwindInfo, true);
    }
    return at;
  }

  fn(begin: number, end: number, unwindInfo: number): FakeFunction {
    const f = { begin, end, unwindInfo };
    this.functions.push(f);
    return f;
  }
}

/** Sparse target memory: 64-bit words by address, plus raw byte ranges. */
export class FakeMemory implements TargetMemory {
  readonly #ranges: { start: bigint; bytes: Uint8Array }[] = [];
  reads = 0;

  range(start: bigint, size: number): Uint8Array {
    const bytes = new Uint8Array(size);
    this.#ranges.push({ start, bytes });
    return bytes;
  }

  u64(address: bigint, value: bigint): this {
    for (const r of this.#ranges) {
      const at = Number(address - r.start);
      if (at >= 0 && at + 8 <= r.bytes.length) {
        new DataView(r.bytes.buffer, r.bytes.byteOffset).setBigUint64(at, value, true);
        return this;
      }
    }
    throw new RangeError(`0x${address.toString(16)} is not in a fake range`);
  }

  read(address: bigint, length: number): Promise<Uint8Array | null> {
    this.reads++;
    for (const r of this.#ranges) {
      const at = Number(address - r.start);
      if (at >= 0 && at < r.bytes.length) {
        return Promise.resolve(r.bytes.subarray(at, Math.min(r.bytes.length, at + length)));
      }
    }
    return Promise.resolve(null);
  }
}
