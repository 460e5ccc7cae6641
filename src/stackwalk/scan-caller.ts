// The walk's last resort for one caller (walk.ts): scan the stack for a return address, and let
// a CONTEXT record around the word found speak instead (context-record.ts). A record that gives
// the interrupted frame's registers is taken whole; a record captured in place gives no caller,
// and its slots (saved RIP, RDX, R10: whatever code or .rdata addresses the registers held) are
// no return addresses, so the scan goes on past its end. Without this, rust-minidump's
// testdata/invalid-parameter.dmp walked the invalid-parameter handler's own CONTEXT (captured by
// RtlCaptureContext) as frames.
import { contextRecordAround } from './context-record.js';
import { scanForReturn, waits, type ModuleIndex } from './scan.js';
import type { Caller } from './unwind-caller.js';
import type { RegisterSet, StackArch } from './types.js';
import type { WalkMemory } from './walk-memory.js';

export interface ScanAsk {
  arch: StackArch;
  /** The callee's registers (the scan's result keeps them but for the IP and SP). */
  registers: RegisterSet;
  /** The callee's stack pointer: a caller must lie above it. */
  sp: bigint;
  /** Where the scan starts (the callee's SP, or above a frame-data function's own words). */
  from: bigint;
  limit: bigint;
  stackHigh: bigint | undefined;
  /** x64 frame 1 of a frame 0 without unwind data: a word at RSP is a leaf's return address. */
  leafCandidate: boolean;
  memory: WalkMemory;
  modules: ModuleIndex;
  plausible: (candidate: RegisterSet, sp: bigint) => boolean;
}

/** The caller a scan finds, or null. */
export async function scanCaller(ask: ScanAsk): Promise<Caller | null> {
  const x64 = ask.arch === 'amd64';
  const ipName = x64 ? 'rip' : 'eip';
  const spName = x64 ? 'rsp' : 'esp';
  const wordSize = x64 ? 8 : 4;
  let from = ask.from;
  // Each pass moves `from` past a record (its end lies above the word found): bounded by limit.
  while (from < ask.limit) {
    const hit = await scanForReturn(from, ask.limit, wordSize, ask.memory, ask.modules);
    if (hit === null) return null;
    const around = contextRecordAround(hit.slot, ask.arch, ask.memory, ask.stackHigh);
    const record = waits(around) ? await around : around;
    if (record === null) {
      const leaf = ask.leafCandidate && hit.slot === ask.sp && hit.trust === 'scan';
      // A copy, then the two registers the scan moved: a spread with computed keys took twice
      // as long (profile of the example dumps' walks: a third of the walk loop's own time).
      const moved: RegisterSet = { ...ask.registers };
      moved[ipName] = hit.ip;
      moved[spName] = hit.slot + BigInt(wordSize);
      return { registers: moved, trust: leaf ? 'leaf' : hit.trust };
    }
    // An exception frame's record gives the interrupted frame's own registers: better than the
    // word, and than whatever the record holds.
    if (record.registers !== null && ask.plausible(record.registers, ask.sp)) {
      return { registers: record.registers, trust: 'context' };
    }
    from = record.end > hit.slot ? record.end : hit.slot + BigInt(wordSize);
  }
  return null;
}
