// CONTEXT records sitting on the stack. When Windows dispatches an exception it copies the
// faulting thread's registers into a CONTEXT on the stack (KiUserExceptionDispatcher's frame),
// and so do RtlCaptureContext / RaiseException callers. A scan that meets one takes its saved
// instruction pointer (and on x64 the home slots) for return addresses and its saved registers
// for frames; recognised, the record is better than any scan: it holds the interrupted frame's
// exact registers, so the walk continues from them (Breakpad only scans past it). A record whose
// own stack pointer lies below it was captured by the function that holds it (RtlCaptureContext
// into a local, as the CRT's invalid-parameter handler and crash reporters do: rust-minidump's
// testdata/invalid-parameter.dmp): it describes that very frame, so it gives no caller, and no
// word inside it is a return address either: the scan goes on past its end. Layouts from
// winnt.h: AMD64 CONTEXT (0x4d0 bytes): ContextFlags at 0x30, SegCs 0x38, SegSs 0x42, Rsp 0x98,
// Rip 0xf8, 16-byte aligned; x86 CONTEXT (0x2cc bytes): ContextFlags at 0, SegCs 0xbc, Esp 0xc4,
// SegSs 0xc8, Eip 0xb8.
import { parseContext } from './context.js';
import type { RegisterSet, StackArch } from './types.js';
import type { WalkMemory } from './walk-memory.js';

const CONTEXT_AMD64 = 0x100000;
const CONTEXT_I386 = 0x10000;
/** CONTROL | INTEGER | SEGMENTS | FLOATING_POINT | DEBUG_REGISTERS (| EXTENDED on x86) | XSTATE. */
const AMD64_PARTS = 0x1f | 0x40;
const I386_PARTS = 0x3f | 0x40;
/** User-mode code and stack selectors: x64 0x33 / 0x2b; x86 0x1b / 0x23 (0x23 / 0x2b in WOW64). */
const AMD64_CS = new Set([0x33]);
const AMD64_SS = new Set([0x2b]);
const X86_CS = new Set([0x1b, 0x23]);
const X86_SS = new Set([0x23, 0x2b]);

/** How far below a scanned word the record may start (its instruction pointer or home slots). */
const LOOK_BACK = { amd64: 0x100, x86: 0xc0 } as const;
/** sizeof(CONTEXT): where a record found on the stack ends. */
const CONTEXT_SIZE = { amd64: 0x4d0n, x86: 0x2ccn } as const;

/** A CONTEXT record on the stack that holds a scanned word. */
export interface ContextRecordHit {
  /** The first byte past the record: where a scan goes on when the record gives no caller. */
  end: bigint;
  /**
   * The interrupted frame's registers, when the record's own stack pointer lies above it inside
   * the stack (an exception frame); null for a record captured in place (RtlCaptureContext).
   */
  registers: RegisterSet | null;
}

/**
 * The CONTEXT record that holds the stack word at `slot`, or null. A record counts only when its
 * flags and segment selectors are those of a user-mode CONTEXT; its registers are given only when
 * its own stack pointer lies above the record, inside the stack: the caller still checks the
 * instruction pointer lies in a module.
 */
export function contextRecordAround(
  slot: bigint,
  arch: StackArch,
  memory: WalkMemory,
  stackHigh: bigint | undefined,
): ContextRecordHit | null | Promise<ContextRecordHit | null> {
  // Most scan hits have no record around them, and every candidate's flags word is in a line
  // the walk already holds: then the answer is "none", given without a promise. A candidate
  // whose flags are not cached, or that passes, sends the whole probe down the path that reads
  // (this pass only looked at cached lines: it read and spent nothing).
  if (slot >= 0n && slot < EXACT) {
    const x64 = arch === 'amd64';
    const align = x64 ? 16 : 4;
    const flagsAt = x64 ? 0x30 : 0;
    const at = Number(slot);
    const lowest = at - LOOK_BACK[arch];
    let start = at - (at % align);
    for (; start >= lowest && start >= 0; start -= align) {
      const flags = memory.cachedU32At(start + flagsAt);
      if (flags === undefined || flagsFit(flags, x64)) break;
    }
    if (!(start >= lowest && start >= 0)) return null;
  }
  return probe(slot, arch, memory, stackHigh);
}

async function probe(
  slot: bigint,
  arch: StackArch,
  memory: WalkMemory,
  stackHigh: bigint | undefined,
): Promise<ContextRecordHit | null> {
  const x64 = arch === 'amd64';
  const align = x64 ? 16 : 4;
  const flagsAt = x64 ? 0x30 : 0;
  if (slot >= 0n && slot < EXACT) {
    // Candidates as numbers (exact below 2^53): a rejected one costs no BigInt and, when its
    // flags are in a cached line, no read.
    const at = Number(slot);
    const lowest = at - LOOK_BACK[arch];
    for (let start = at - (at % align); start >= lowest && start >= 0; start -= align) {
      let flags: number | null | undefined = memory.cachedU32At(start + flagsAt);
      if (flags === undefined) {
        const read = flagsOf(BigInt(start + flagsAt), memory);
        flags = typeof read === 'object' && read !== null ? await read : read;
      }
      if (flags === null || !flagsFit(flags, x64)) continue;
      const record = await recordAt(BigInt(start), arch, memory, stackHigh);
      if (record !== null) return record;
    }
    return null;
  }
  const lowest = slot - BigInt(LOOK_BACK[arch]);
  const step = BigInt(align);
  for (let start = slot - (slot % step); start >= lowest && start >= 0n; start -= step) {
    const flags = await flagsOf(start + BigInt(flagsAt), memory);
    if (flags === null || !flagsFit(flags, x64)) continue;
    const record = await recordAt(start, arch, memory, stackHigh);
    if (record !== null) return record;
  }
  return null;
}

/** Addresses below this are exact as numbers. */
const EXACT = 0x20_0000_0000_0000n;

/**
 * The flags word first (from the walk's line cache when it is there): almost every candidate fails
 * on it, and the whole record is read only for one that passes (each window read whole cost a
 * copy of up to 256 bytes, 17 windows per scan hit on x64).
 */
function flagsOf(address: bigint, memory: WalkMemory): number | null | Promise<number | null> {
  const head = memory.bytesNow(address, 4);
  if (head === undefined) return memory.bytes(address, 4).then(flagsIn);
  return flagsIn(head);
}

function flagsIn(head: Uint8Array | null): number | null {
  if (head === null) return null;
  return (head[0] ?? 0) | ((head[1] ?? 0) << 8) | ((head[2] ?? 0) << 16) | ((head[3] ?? 0) << 24);
}

function flagsFit(flags: number, x64: boolean): boolean {
  const kind = x64 ? CONTEXT_AMD64 : CONTEXT_I386;
  const parts = x64 ? AMD64_PARTS : I386_PARTS;
  return (flags & kind) !== 0 && (flags & ~(kind | parts)) === 0;
}

/**
 * The record starting at `start` when its selectors are a user-mode thread's; its registers when
 * its stack pointer lies above it, inside the stack.
 */
async function recordAt(
  start: bigint,
  arch: StackArch,
  memory: WalkMemory,
  stackHigh: bigint | undefined,
): Promise<ContextRecordHit | null> {
  const x64 = arch === 'amd64';
  const size = x64 ? 0x100 : 0xcc;
  let bytes = memory.bytesNow(start, size);
  if (bytes === undefined) bytes = await memory.bytes(start, size);
  if (bytes === null) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cs = view.getUint16(x64 ? 0x38 : 0xbc, true);
  const ss = view.getUint16(x64 ? 0x42 : 0xc8, true);
  if (!(x64 ? AMD64_CS : X86_CS).has(cs) || !(x64 ? AMD64_SS : X86_SS).has(ss)) return null;
  const registers = parseContext(bytes, arch);
  if (registers === null) return null;
  const end = start + CONTEXT_SIZE[arch];
  const sp = registers[x64 ? 'rsp' : 'esp'] ?? 0n;
  if (sp <= start || (stackHigh !== undefined && sp >= stackHigh)) return { end, registers: null };
  return { end, registers };
}
