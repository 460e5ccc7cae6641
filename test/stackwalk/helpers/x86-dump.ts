// Synthetic x86 minidumps for the walker: 32-bit programs cannot run on these machines, so x86
// stacks are built here from the documented frame layouts and written as a real minidump
// (SystemInfo with PROCESSOR_ARCHITECTURE_INTEL, one thread with an x86 CONTEXT, modules, the
// stack in a MemoryList, an exception stream). Frame layout of `push ebp; mov ebp, esp`: [ebp]
// holds the caller's EBP and [ebp+4] the return address (Intel SDM vol. 1 §6.5.6); an FPO
// function keeps EBP untouched and its return address sits above its locals and saved registers.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DumpBuilder, struct } from '../../minidump/helpers/dump-builder.js';

export interface X86Module {
  name: string;
  base: number;
  size: number;
}

export interface X86Stack {
  /** Lowest address of the captured stack (ESP of frame 0 or below). */
  base: number;
  /** The stack's bytes, built by the caller with StackWriter. */
  bytes: Buffer;
}

/** Writes 32-bit words into a stack image addressed by virtual address. */
export class StackWriter {
  readonly base: number;
  readonly bytes: Buffer;
  constructor(base: number, size: number) {
    this.base = base;
    this.bytes = Buffer.alloc(size);
  }
  put(address: number, value: number): this {
    this.bytes.writeUInt32LE(value >>> 0, address - this.base);
    return this;
  }
}

export interface X86DumpSpec {
  modules: X86Module[];
  stack: X86Stack;
  registers: { eip: number; esp: number; ebp: number };
  threadId?: number;
  /** No exception stream (a dump written on request, not at a crash). */
  noException?: boolean;
  /** The access violation's address parameter as written (default 0x18). */
  accessAddress?: bigint;
  /** A second thread listed first, with the same context: the one that wrote the dump. */
  writerThreadId?: number;
  /** A BreakpadInfo stream (minidump_format.h MDRawBreakpadInfo). */
  breakpadInfo?: { dumpThreadId?: number; requestingThreadId?: number };
}

const STREAM_THREAD_LIST = 3;
const STREAM_MODULE_LIST = 4;
const STREAM_MEMORY_LIST = 5;
const STREAM_EXCEPTION = 6;
const STREAM_SYSTEM_INFO = 7;
const X86_CONTEXT_SIZE = 716;

export function x86Dump(spec: X86DumpSpec): Buffer {
  const threadId = spec.threadId ?? 0x1234;
  const b = new DumpBuilder(
    5 - (spec.noException === true ? 1 : 0) + (spec.breakpadInfo === undefined ? 0 : 1),
  );
  const context = struct(X86_CONTEXT_SIZE, (c) => {
    c.writeUInt32LE(0x1003f, 0); // CONTEXT_i386 | FULL
    c.writeUInt32LE(spec.registers.ebp >>> 0, 180);
    c.writeUInt32LE(spec.registers.eip >>> 0, 184);
    c.writeUInt32LE(spec.registers.esp >>> 0, 196);
  });
  const contextRva = b.append(context);
  const stackRva = b.append(spec.stack.bytes);
  const names = spec.modules.map((m) => b.string(`C:\\app\\${m.name}`));
  b.stream(
    STREAM_SYSTEM_INFO,
    struct(56, (s) => {
      s.writeUInt16LE(0, 0); // PROCESSOR_ARCHITECTURE_INTEL
      s.writeUInt8(1, 6);
      s.writeUInt32LE(10, 8);
      s.writeUInt32LE(2, 20); // VER_PLATFORM_WIN32_NT
    }),
  );
  const ids = spec.writerThreadId === undefined ? [threadId] : [spec.writerThreadId, threadId];
  b.stream(
    STREAM_THREAD_LIST,
    struct(4 + 48 * ids.length, (t) => {
      t.writeUInt32LE(ids.length, 0);
      ids.forEach((id, i) => {
        const at = 4 + 48 * i;
        t.writeUInt32LE(id, at);
        t.writeBigUInt64LE(BigInt(spec.stack.base), at + 24);
        t.writeUInt32LE(spec.stack.bytes.length, at + 32);
        t.writeUInt32LE(stackRva, at + 36);
        t.writeUInt32LE(X86_CONTEXT_SIZE, at + 40);
        t.writeUInt32LE(contextRva, at + 44);
      });
    }),
  );
  const info = spec.breakpadInfo;
  if (info !== undefined) {
    b.stream(
      0x47670001,
      struct(12, (s) => {
        const validity =
          (info.dumpThreadId === undefined ? 0 : 1) |
          (info.requestingThreadId === undefined ? 0 : 2);
        s.writeUInt32LE(validity, 0);
        s.writeUInt32LE(info.dumpThreadId ?? 0, 4);
        s.writeUInt32LE(info.requestingThreadId ?? 0, 8);
      }),
    );
  }
  b.stream(
    STREAM_MODULE_LIST,
    struct(4 + 108 * spec.modules.length, (l) => {
      l.writeUInt32LE(spec.modules.length, 0);
      spec.modules.forEach((m, i) => {
        const at = 4 + i * 108;
        l.writeBigUInt64LE(BigInt(m.base), at);
        l.writeUInt32LE(m.size, at + 8);
        l.writeUInt32LE(0x5f000000 + i, at + 16);
        l.writeUInt32LE(names[i] ?? 0, at + 20);
      });
    }),
  );
  b.stream(
    STREAM_MEMORY_LIST,
    struct(4 + 16, (l) => {
      l.writeUInt32LE(1, 0);
      l.writeBigUInt64LE(BigInt(spec.stack.base), 4);
      l.writeUInt32LE(spec.stack.bytes.length, 12);
      l.writeUInt32LE(stackRva, 16);
    }),
  );
  if (spec.noException === true) return b.build();
  b.stream(
    STREAM_EXCEPTION,
    struct(168, (e) => {
      e.writeUInt32LE(threadId, 0);
      e.writeUInt32LE(0xc0000005, 8);
      e.writeBigUInt64LE(BigInt(spec.registers.eip), 24);
      e.writeUInt32LE(2, 32);
      e.writeBigUInt64LE(1n, 40);
      e.writeBigUInt64LE(spec.accessAddress ?? 0x18n, 48);
      e.writeUInt32LE(X86_CONTEXT_SIZE, 160);
      e.writeUInt32LE(contextRva, 164);
    }),
  );
  return b.build();
}

export function writeX86Dump(dir: string, name: string, spec: X86DumpSpec): string {
  const path = join(dir, name);
  writeFileSync(path, x86Dump(spec));
  return path;
}
