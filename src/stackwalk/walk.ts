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
import { contextRecordAround } from './context-record.js';
import { scanForReturn, waits, type Maybe, type ModuleIndex } from './scan.js';
import { isThreadStart, isThreadStartThunk } from './thread-start.js';
import type {
  FrameTrust,
  ImageView,
  ModuleRef,
  RegisterSet,
  StackFrame,
  StackWalk,
  SymbolHit,
  SymbolProvider,
  WalkInput,
} from './types.js';
import { unwindCaller } from './unwind-caller.js';
import { WalkMemory } from './walk-memory.js';

export const DEFAULT_MAX_FRAMES = 256;
export const DEFAULT_MAX_READS = 4096;
export const DEFAULT_MAX_SCAN_BYTES = 8192;
/** Below this no code is mapped on Windows: an instruction pointer there ends the walk. */
const LOWEST_CODE = 0x10000n;

/** A sorted module table with binary-search lookup (a process has a few hundred modules). */
export function moduleIndex(modules: readonly ModuleRef[], input: WalkInput): ModuleIndex {
  // Module lists are mostly in address order already: sorted only when not.
  let inOrder = true;
  for (let i = 1; i < modules.length && inOrder; i++) {
    if (modules[i]!.base < modules[i - 1]!.base) inOrder = false;
  }
  const sorted = inOrder
    ? modules
    : [...modules].sort((a, b) => (a.base < b.base ? -1 : a.base > b.base ? 1 : 0));
  // Bounds computed once: a lookup does no BigInt arithmetic.
  const count = sorted.length;
  const bases: bigint[] = new Array<bigint>(count);
  const ends: bigint[] = new Array<bigint>(count);
  let numBases: Float64Array | undefined = new Float64Array(count);
  let numEnds: Float64Array | undefined = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const module = sorted[i]!;
    const end = module.base + BigInt(module.size);
    bases[i] = module.base;
    ends[i] = end;
    if (end > EXACT) numBases = numEnds = undefined;
    else if (numBases !== undefined && numEnds !== undefined) {
      numBases[i] = Number(module.base);
      numEnds[i] = Number(end);
    }
  }
  const cache = new Map<ModuleRef, Promise<ImageView | undefined>>();
  /** Images found so far (null: none), handed out without a promise. */
  const images = new Map<ModuleRef, ImageView | null>();
  const covered = new Map<ModuleRef, Promise<boolean>>();
  const coveredNow = new Map<ModuleRef, boolean>();
  const symbols = input.symbols;
  const covers = symbols?.covers?.bind(symbols);
  const index: ModuleIndex = {
    at(address) {
      let low = 0;
      let high = sorted.length - 1;
      while (low <= high) {
        const mid = (low + high) >>> 1;
        if (address < bases[mid]!) high = mid - 1;
        else if (address >= ends[mid]!) low = mid + 1;
        else return sorted[mid];
      }
      return undefined;
    },
    image(module) {
      const known = images.get(module);
      if (known !== undefined) return known ?? undefined;
      const source = input.images;
      if (source === undefined) return Promise.resolve(undefined);
      let found = cache.get(module);
      if (!found) {
        found = source.image(module);
        cache.set(module, found);
        found.then(
          (image) => images.set(module, image ?? null),
          () => undefined, // the walk that awaits `found` meets the error
        );
      }
      return found;
    },
  };
  if (numBases !== undefined && numEnds !== undefined) {
    // A local first, then stored (eslint.config.js, noFunctionLiteralIntoProperty).
    const atNumber: NonNullable<ModuleIndex['atNumber']> = (address) => {
      let low = 0;
      let high = sorted.length - 1;
      while (low <= high) {
        const mid = (low + high) >>> 1;
        if (address < numBases[mid]!) high = mid - 1;
        else if (address >= numEnds[mid]!) low = mid + 1;
        else return sorted[mid];
      }
      return undefined;
    };
    index.atNumber = atNumber;
  }
  if (symbols !== undefined && covers !== undefined) {
    const inside = (module: ModuleRef, rva: number): Maybe<boolean> => {
      const hit = symbols.lookup(module, rva);
      return waits(hit) ? hit.then((h) => h !== undefined) : hit !== undefined;
    };
    const inFunction: NonNullable<ModuleIndex['inFunction']> = (module, rva) => {
      const now = coveredNow.get(module);
      if (now !== undefined) return now ? inside(module, rva) : true;
      let known = covered.get(module);
      if (known === undefined) {
        known = Promise.resolve(covers(module));
        covered.set(module, known);
        known.then(
          (yes) => coveredNow.set(module, yes),
          () => undefined,
        );
      }
      return known.then((yes) => (yes ? inside(module, rva) : true));
    };
    index.inFunction = inFunction;
  }
  return index;
}

/** Addresses below this are exact as numbers. */
const EXACT = 0x20_0000_0000_0000n;

export async function walkStack(input: WalkInput, index?: ModuleIndex): Promise<StackWalk> {
  const maxFrames = input.limits?.maxFrames ?? DEFAULT_MAX_FRAMES;
  const maxScan = BigInt(input.limits?.maxScanBytes ?? DEFAULT_MAX_SCAN_BYTES);
  const memory = new WalkMemory(input.memory, input.limits?.maxReads ?? DEFAULT_MAX_READS);
  const modules = index ?? moduleIndex(input.modules, input);
  const x64 = input.arch === 'amd64';
  const ipName = x64 ? 'rip' : 'eip';
  const spName = x64 ? 'rsp' : 'esp';
  const wordSize = x64 ? 8 : 4;
  const warnings: string[] = [];
  const frames: StackFrame[] = [];
  const stackHigh = input.stack?.high;

  /** A caller is plausible when its stack pointer grows, stays in the stack, and its ip is in a module. */
  const plausible = (candidate: RegisterSet, sp: bigint): boolean => {
    const nextSp = candidate[spName] ?? 0n;
    if (nextSp <= sp) return false; // a cycle, or a stack pointer going down
    if (stackHigh !== undefined && nextSp > stackHigh) return false;
    return modules.at(candidate[ipName] ?? 0n) !== undefined;
  };
  let registers: RegisterSet = { ...input.registers };
  let trust: FrameTrust = 'context';
  let stop: StackWalk['stop'] = 'end';
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
      warnings.push(`time budget spent after ${frames.length} frames`);
      break;
    }
    const scanned = trust === 'scan' || trust === 'scan-call';
    // Frame 0 and a frame from a CONTEXT record stand at their instruction, not after a call.
    const asked = unwindCaller(registers, trust === 'context', input, memory, modules);
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
      // Scan from the callee's stack pointer for the next return address.
      const limit = stackHigh !== undefined && stackHigh < sp + maxScan ? stackHigh : sp + maxScan;
      const hit = await scanForReturn(sp, limit, wordSize, memory, modules);
      // A CONTEXT record around the word found (an exception frame) gives the interrupted
      // frame's own registers: better than the word, and than whatever the record holds.
      const around =
        hit === null ? null : contextRecordAround(hit.slot, input.arch, memory, stackHigh);
      const record = waits(around) ? await around : around;
      if (record !== null && plausible(record, sp)) {
        next = { registers: record, trust: 'context' };
      } else if (hit !== null) {
        // x64 frame 0 without unwind data whose return address sits at RSP: a leaf function.
        const leaf = x64 && frames.length === 1 && hit.slot === sp && hit.trust === 'scan';
        // A copy, then the two registers the scan moved: a spread with computed keys took twice
        // as long (profile of the example dumps' walks: a third of this loop's own time).
        const moved: RegisterSet = { ...registers };
        moved[ipName] = hit.ip;
        moved[spName] = hit.slot + BigInt(wordSize);
        next = { registers: moved, trust: leaf ? 'leaf' : hit.trust };
      }
    }
    if (memory.exhausted) {
      stop = 'budget';
      warnings.push(`read budget of ${input.limits?.maxReads ?? DEFAULT_MAX_READS} reads spent`);
      break;
    }
    if (next === null) {
      const callerIp = caller?.registers[ipName];
      if (cfiEnd || chainEnd || (callerIp !== undefined && callerIp < LOWEST_CODE)) stop = 'end';
      else {
        stop = 'lost';
        warnings.push(
          `no caller found for frame ${frames.length - 1} (0x${ip.toString(16)}): walk ends`,
        );
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
      if (!isThreadStart(probe)) break;
    }
    registers = next.registers;
    trust = next.trust;
  }
  const last = frames[frames.length - 1];
  if (stop === 'lost' && last !== undefined && last.module === undefined) {
    warnings.push(`frame ${last.index} (0x${last.address.toString(16)}) is in no module`);
  }
  return { threadId: input.threadId, frames, warnings, stop };
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
  const module = modules.at(instruction);
  if (module !== undefined) {
    frame.module = module;
    frame.moduleOffset = Number(ip - module.base);
  }
  return frame;
}

/**
 * Names a frame at its `instruction`; the offset shown is from the function start to the frame's
 * address, as debuggers print it (`av!main+0x2f` for the return address, not the call).
 */
function nameFrame(frame: StackFrame, symbols: SymbolProvider): Promise<void> | undefined {
  const module = frame.module;
  if (module === undefined) return undefined;
  const hit = symbols.lookup(module, Number(frame.instruction - module.base));
  if (waits(hit)) return hit.then((found) => named(frame, found));
  named(frame, hit);
  return undefined;
}

function named(frame: StackFrame, hit: SymbolHit | undefined): void {
  if (hit !== undefined) {
    frame.symbol = { ...hit, offset: hit.offset + Number(frame.address - frame.instruction) };
  }
}
