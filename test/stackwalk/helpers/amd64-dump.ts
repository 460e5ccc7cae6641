// Synthetic x64 minidumps for the walker, written as real minidumps like x86-dump.ts: SystemInfo
// (PROCESSOR_ARCHITECTURE_AMD64, Windows 10), one thread whose stack is captured in a
// MemoryList, modules without images, and an exception stream whose CONTEXT is the one given.
// CONTEXT layout from winnt.h (AMD64, 1232 bytes): ContextFlags 0x30, SegCs 0x38, SegSs 0x42,
// Rax..R15 0x78..0xf0, Rip 0xf8.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DumpBuilder, struct } from '../../minidump/helpers/dump-builder.js';

export const AMD64_CONTEXT_SIZE = 0x4d0;
/** Register slots of an AMD64 CONTEXT, by name. */
export const AMD64_SLOTS: Record<string, number> = {
  rax: 0x78, rcx: 0x80, rdx: 0x88, rbx: 0x90, rsp: 0x98, rbp: 0xa0, rsi: 0xa8, rdi: 0xb0,
  r8: 0xb8, r9: 0xc0, r10: 0xc8, r11: 0xd0, r12: 0xd8, r13: 0xe0, r14: 0xe8, r15: 0xf0,
  rip: 0xf8,
}; // prettier-ignore

export interface Amd64Module {
  name: string;
  base: bigint;
  size: number;
}

/** Writes 64-bit words (and whole CONTEXT records) into a stack image addressed by address. */
export class Stack64 {
  readonly bytes: Buffer;
  constructor(
    readonly base: bigint,
    size: number,
  ) {
    this.bytes = Buffer.alloc(size);
  }
  put(address: bigint, value: bigint): this {
    this.bytes.writeBigUInt64LE(value, Number(address - this.base));
    return this;
  }
  /** A user-mode CONTEXT_AMD64 | CONTROL | INTEGER | SEGMENTS | FLOATING_POINT at `at`. */
  context(at: bigint, registers: Record<string, bigint>): this {
    this.bytes.set(amd64Context(registers), Number(at - this.base));
    return this;
  }
}

/** The bytes of a CONTEXT as RtlCaptureContext fills one (flags 0x10000f, cs 0x33, ss 0x2b). */
export function amd64Context(registers: Record<string, bigint>): Buffer {
  return struct(AMD64_CONTEXT_SIZE, (c) => {
    c.writeUInt32LE(0x10000f, 0x30);
    c.writeUInt16LE(0x33, 0x38);
    c.writeUInt16LE(0x2b, 0x42);
    for (const [name, value] of Object.entries(registers)) {
      const slot = AMD64_SLOTS[name];
      if (slot !== undefined) c.writeBigUInt64LE(value, slot);
    }
  });
}

export interface Amd64DumpSpec {
  modules: Amd64Module[];
  stack: Stack64;
  /** The exception's (and the thread's) registers. */
  registers: Record<string, bigint>;
  exceptionCode?: number;
  threadId?: number;
}

export function amd64Dump(spec: Amd64DumpSpec): Buffer {
  const threadId = spec.threadId ?? 0x1708;
  const b = new DumpBuilder(5);
  const contextRva = b.append(amd64Context(spec.registers));
  const stackRva = b.append(spec.stack.bytes);
  const names = spec.modules.map((m) => b.string(`C:\\app\\${m.name}`));
  b.stream(
    7, // SystemInfo
    struct(56, (s) => {
      s.writeUInt16LE(9, 0); // PROCESSOR_ARCHITECTURE_AMD64
      s.writeUInt8(1, 6);
      s.writeUInt32LE(10, 8); // Windows 10
      s.writeUInt32LE(2, 20); // VER_PLATFORM_WIN32_NT
    }),
  );
  b.stream(
    3, // ThreadList
    struct(4 + 48, (t) => {
      t.writeUInt32LE(1, 0);
      t.writeUInt32LE(threadId, 4);
      t.writeBigUInt64LE(spec.stack.base, 4 + 24);
      t.writeUInt32LE(spec.stack.bytes.length, 4 + 32);
      t.writeUInt32LE(stackRva, 4 + 36);
      t.writeUInt32LE(AMD64_CONTEXT_SIZE, 4 + 40);
      t.writeUInt32LE(contextRva, 4 + 44);
    }),
  );
  b.stream(
    4, // ModuleList
    struct(4 + 108 * spec.modules.length, (l) => {
      l.writeUInt32LE(spec.modules.length, 0);
      spec.modules.forEach((m, i) => {
        const at = 4 + i * 108;
        l.writeBigUInt64LE(m.base, at);
        l.writeUInt32LE(m.size, at + 8);
        l.writeUInt32LE(0x5f000000 + i, at + 16);
        l.writeUInt32LE(names[i] ?? 0, at + 20);
      });
    }),
  );
  b.stream(
    5, // MemoryList
    struct(4 + 16, (l) => {
      l.writeUInt32LE(1, 0);
      l.writeBigUInt64LE(spec.stack.base, 4);
      l.writeUInt32LE(spec.stack.bytes.length, 12);
      l.writeUInt32LE(stackRva, 16);
    }),
  );
  b.stream(
    6, // Exception
    struct(168, (e) => {
      e.writeUInt32LE(threadId, 0);
      e.writeUInt32LE(spec.exceptionCode ?? 0xc000000d, 8);
      e.writeUInt32LE(AMD64_CONTEXT_SIZE, 160);
      e.writeUInt32LE(contextRva, 164);
    }),
  );
  return b.build();
}

export function writeAmd64Dump(dir: string, name: string, spec: Amd64DumpSpec): string {
  const path = join(dir, name);
  writeFileSync(path, amd64Dump(spec));
  return path;
}
