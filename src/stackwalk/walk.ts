// Walks one thread's stack, rust-minidump style: frame 0 from the register context, then for
// each caller the best unwinder that gives a plausible answer: unwind data (x64 .pdata/.xdata,
// Breakpad STACK CFI for either CPU, x86 FPO / STACK WIN from an UnwindProvider), on x64 the
// word at RSP when frame 0 has no unwind data (a leaf), the frame-pointer chain (x86), then a
// bounded scan. An answer is plausible when the stack pointer grows, stays inside the stack, and
// the new instruction pointer lies in a module. Unwind data applied to a frame that was itself
// found by scanning may be wrong about it (the scan may have picked a stale word): its answer is
// then checked like any other and, when implausible, the walk scans on instead of ending
// (Breakpad's StackwalkerX86 does the same). Frames are named as they are found (WalkInput.symbols)
// and the walk ends at the thread's start routine. Bounds: maxFrames, a read budget,
// maxScanBytes per scan. Nothing here throws on bad data: a corrupt stack ends the walk with a
// warning.
import { moduleIndex } from './module-index.js';
import { waits, type ModuleIndex } from './scan.js';
import { scanCaller } from './scan-caller.js';
import {
  framesToThreadStart,
  isThreadStart,
  isThreadStartThunk,
  mayStartThread,
} from './thread-start.js';
import type {
  FrameTrust,
  ModuleRef,
  RegisterSet,
  StackFrame,
  StackWalk,
  SymbolHit,
  SymbolProvider,
  WalkInput,
} from './types.js';
import { unwindCaller, type CallerStep } from './unwind-caller.js';
import { WalkMemory } from './walk-memory.js';

export const DEFAULT_MAX_FRAMES = 256;
export const DEFAULT_MAX_READS = 4096;
export const DEFAULT_MAX_SCAN_BYTES = 8192;
/** Below this no code is mapped on Windows: an instruction pointer there ends the walk. */
const LOWEST_CODE = 0x10000n;
/** No code lives in the first page of an image (the PE headers). */
const HEADER_BYTES = 0x1000n;

export async function walkStack(input: WalkInput, index?: ModuleIndex): Promise<StackWalk> {
  const maxFrames = input.limits?.maxFrames ?? DEFAULT_MAX_FRAMES;
  const maxScan = BigInt(input.limits?.maxScanBytes ?? DEFAULT_MAX_SCAN_BYTES);
  const memory = new WalkMemory(input.memory, input.limits?.maxReads ?? DEFAULT_MAX_READS);
  const modules = index ?? moduleIndex(input.modules, input);
  const x64 = input.arch === 'amd64';
  const ipName = x64 ? 'rip' : 'eip';
  const spName = x64 ? 'rsp' : 'esp';
  const warnings: string[] = [];
  const frames: StackFrame[] = [];
  const stackHigh = input.stack?.high;

  /**
   * A caller is plausible when its stack pointer grows, stays in the stack, and its ip is in a
   * module past the header page (no code lives in a PE's first page: an image base read as a
   * return address is data).
   */
  const plausible = (candidate: RegisterSet, sp: bigint): boolean => {
    const nextSp = candidate[spName] ?? 0n;
    if (nextSp <= sp) return false; // a cycle, or a stack pointer going down
    if (stackHigh !== undefined && nextSp > stackHigh) return false;
    const ip = candidate[ipName] ?? 0n;
    const module = modules.at(ip);
    return module !== undefined && ip - module.base >= HEADER_BYTES;
  };
  let registers: RegisterSet = { ...input.registers };
  let trust: FrameTrust = 'context';
  let stop: StackWalk['stop'] = 'end';
  let cut: StackWalk['cut'];
  // x86: the parameter size of the last frame's frame data (`.cbCalleeParams` for its caller).
  const step: CallerStep = { calleeParameterSize: 0 };
  for (;;) {
    const ip = registers[ipName] ?? 0n;
    const sp = registers[spName] ?? 0n;
    const frame = makeFrame(frames.length, ip, sp, registers, trust, modules, x64);
    const naming = input.symbols === undefined ? undefined : nameFrame(frame, input.symbols);
    if (naming !== undefined) await naming;
    frames.push(frame);
    if (frames.length >= maxFrames) {
      stop = 'limit';
      warnings.push(`stopped after ${maxFrames} frames`);
      break;
    }
    // The thread's first function: nothing above it but the stack's unused top.
    if (isThreadStart(frame)) break;
    if (input.limits?.outOfTime?.() === true) {
      stop = 'budget';
      cut = 'time';
      warnings.push(`time budget spent after ${frames.length} frames`);
      break;
    }
    const scanned = trust === 'scan' || trust === 'scan-call';
    // Frame 0 and a frame from a CONTEXT record stand at their instruction, not after a call.
    const asked = unwindCaller(registers, trust === 'context', input, memory, modules, step);
    const caller = waits(asked) ? await asked : asked;
    let next = caller && plausible(caller.registers, sp) ? caller : null;
    // Unwind data that ran cleanly and leads out of every module (or to 0) is the stack's end
    // (the thread's first function): a scan there would only find leftovers. Not so for a
    // scanned frame: the data describes the function the scan guessed, perhaps wrongly.
    const cfiEnd =
      !scanned &&
      caller !== null &&
      caller.trust === 'cfi' &&
      (caller.registers[spName] ?? 0n) > sp &&
      modules.at(caller.registers[ipName] ?? 0n) === undefined;
    // An x86 EBP of 0 is the chain's documented end (the thread's first frame clears it), and so
    // is a saved return address of 0 found by a clean unwind step (Breakpad stops there too).
    const chainEnd =
      !scanned &&
      ((!x64 && registers['ebp'] === 0n) ||
        (caller !== null &&
          (caller.registers[ipName] ?? 0n) === 0n &&
          (caller.registers[spName] ?? 0n) > sp));
    if (next === null && !cfiEnd && !chainEnd) {
      // Scan for the next return address: from the callee's stack pointer, or past the words
      // x86 frame data says are the function's own (its locals and saved registers).
      const from =
        caller?.rescanFrom !== undefined && caller.rescanFrom > sp ? caller.rescanFrom : sp;
      const limit = stackHigh !== undefined && stackHigh < sp + maxScan ? stackHigh : sp + maxScan;
      next = await scanCaller({
        arch: input.arch,
        registers,
        sp,
        from,
        limit,
        stackHigh,
        leafCandidate: x64 && frames.length === 1,
        memory,
        modules,
        plausible,
      });
    }
    if (memory.exhausted) {
      stop = 'budget';
      cut = 'reads';
      warnings.push(`read budget of ${input.limits?.maxReads ?? DEFAULT_MAX_READS} reads spent`);
      break;
    }
    if (next === null) {
      const callerIp = caller?.registers[ipName];
      if (cfiEnd || chainEnd || (callerIp !== undefined && callerIp < LOWEST_CODE)) stop = 'end';
      else {
        stop = 'lost';
      }
      break;
    }
    // kernel32!BaseThreadInitThunk is called by the start routine only: a scanned caller that is
    // not it is a leftover word, and the walk ends here.
    if (
      isThreadStartThunk(frame) &&
      (next.trust === 'scan' || next.trust === 'scan-call') &&
      input.symbols !== undefined
    ) {
      const probe = makeFrame(
        frames.length,
        next.registers[ipName] ?? 0n,
        next.registers[spName] ?? 0n,
        next.registers,
        next.trust,
        modules,
        x64,
      );
      const naming = nameFrame(probe, input.symbols);
      if (naming !== undefined) await naming;
      if (!isThreadStart(probe) && !mayStartThread(probe)) break;
    }
    registers = next.registers;
    trust = next.trust;
  }
  // Past RtlUserThreadStart (unnamed) a scan finds only the stack's leftovers: copies of the
  // start routine's address, Wine's start-up words.
  if (input.startsInNtdll === true && (stop === 'lost' || stop === 'end')) {
    const keep = framesToThreadStart(frames);
    if (keep !== undefined) {
      frames.length = keep;
      stop = 'end';
    }
  }
  const last = frames[frames.length - 1];
  if (stop === 'lost' && last !== undefined) {
    const at = `frame ${last.index} (0x${last.address.toString(16)})`;
    warnings.push(`no caller found for ${at}: walk ends`);
    if (last.module === undefined) warnings.push(`${at} is in no module`);
  }
  return {
    threadId: input.threadId,
    frames,
    warnings,
    stop,
    ...(cut === undefined ? {} : { cut }),
  };
}

function makeFrame(
  index: number,
  ip: bigint,
  sp: bigint,
  registers: RegisterSet,
  trust: FrameTrust,
  modules: ModuleIndex,
  x64: boolean,
): StackFrame {
  // The lookup address, decided here once (types.ts StackFrame.instruction).
  const instruction = trust === 'context' || ip === 0n ? ip : ip - 1n;
  const frame: StackFrame = { index, address: ip, instruction, stackPointer: sp, trust };
  if (index > 0 && trust !== 'context') frame.returnAddress = ip;
  const fp = registers[x64 ? 'rbp' : 'ebp'];
  if (fp !== undefined) frame.framePointer = fp;
  // A frame lying in a module carries it, even where its lookup address (one byte back) does not.
  const module = modules.at(instruction) ?? modules.at(ip);
  if (module !== undefined) {
    frame.module = module;
    frame.moduleOffset = Number(ip - module.base);
  }
  return frame;
}

/**
 * Names a frame at its `instruction`; the offset shown is from the function start to the frame's
 * address, as debuggers print it (`av!main+0x2f` for the return address, not the call). A named
 * frame then gets the inlined calls active there (SymbolProvider.inlines): asked here, once per
 * frame the walk keeps, so inline data is read only for functions on the stack.
 */
function nameFrame(frame: StackFrame, symbols: SymbolProvider): Promise<void> | undefined {
  const module = frame.module;
  if (module === undefined || frame.instruction < module.base) return undefined;
  const rva = Number(frame.instruction - module.base);
  const hit = symbols.lookup(module, rva);
  if (waits(hit)) {
    return hit.then((found) => {
      named(frame, found);
      return inlinesOf(frame, symbols, module, rva);
    });
  }
  named(frame, hit);
  return inlinesOf(frame, symbols, module, rva);
}

function named(frame: StackFrame, hit: SymbolHit | undefined): void {
  if (hit !== undefined) {
    frame.symbol = { ...hit, offset: hit.offset + Number(frame.address - frame.instruction) };
  }
}

function inlinesOf(
  frame: StackFrame,
  symbols: SymbolProvider,
  module: ModuleRef,
  rva: number,
): Promise<void> | undefined {
  if (frame.symbol === undefined || symbols.inlines === undefined) return undefined;
  const found = symbols.inlines(module, rva);
  if (waits(found)) return found.then((hits) => inlined(frame, hits));
  inlined(frame, found);
  return undefined;
}

function inlined(frame: StackFrame, hits: SymbolHit[] | undefined): void {
  if (hits === undefined || hits.length === 0) return;
  const back = Number(frame.address - frame.instruction);
  frame.inlines = hits.map((hit) => ({ ...hit, offset: hit.offset + back }));
}
