// One caller step of the walk (walk.ts): unwind data, then on x86 the EBP chain. The walker checks
// the answer's plausibility and scans when there is none. x64: the image's .pdata/.xdata
// (amd64-unwind.ts), else Breakpad STACK CFI. x86: FPO / STACK WIN frame data from an
// UnwindProvider, then STACK CFI, then the chain (x86-unwind.ts), Breakpad StackwalkerX86's order
// (https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/src/processor/stackwalker_x86.cc).
import { unwindAmd64 } from './amd64-unwind.js';
import { unwindByCfi } from './cfi-unwind.js';
import { returnAddressTrust, waits, type Maybe, type ModuleIndex } from './scan.js';
import type {
  CfiRules,
  FrameTrust,
  ModuleRef,
  RegisterSet,
  WalkInput,
  X86FrameData,
} from './types.js';
import type { WalkMemory } from './walk-memory.js';
import { unwindX86ByFrameData, unwindX86ByFramePointer, type X86Outcome } from './x86-unwind.js';

export interface Caller {
  registers: RegisterSet;
  trust: FrameTrust;
  /**
   * x86 frame data: where the walk scans on when the caller given is implausible (the words
   * below are the unwound function's locals and saved registers: x86-unwind.ts).
   */
  rescanFrom?: bigint;
}

/** The unwound frame's x86 frame data, when found: its parameter size is the next step's `.cbCalleeParams`. */
export interface CallerStep {
  calleeParameterSize: number;
}

/**
 * The caller by unwind data or, on x86, the EBP chain. On x86 each step answers without a
 * promise when its hook or read does (UnwindProvider hooks may answer synchronously; WalkMemory's
 * `…Now` reads): the order of the questions and of the reads is the asynchronous form's.
 */
export function unwindCaller(
  registers: RegisterSet,
  first: boolean,
  input: WalkInput,
  memory: WalkMemory,
  modules: ModuleIndex,
  step: CallerStep = { calleeParameterSize: 0 },
): Maybe<Caller | null> {
  if (input.arch === 'amd64') {
    // No image (known already) and no STACK CFI: no unwind data to ask, and the answer (none:
    // the walk scans) needs no promise. Most frames of dumps without images.
    if (input.unwind?.cfi === undefined) {
      const module = modules.at(registers['rip'] ?? 0n);
      if (module === undefined) return null;
      const image = modules.image(module);
      if (!waits(image) && image === undefined) return null;
    }
    return unwindAmd64Caller(registers, first, input, memory, modules);
  }
  const ip = registers['eip'] ?? 0n;
  const module = modules.at(ip);
  if (module === undefined) return framePointerCaller(registers, input, memory);
  // A caller's return address is looked up one byte back (the call's last byte).
  const rva = Number(ip - module.base) - (first ? 0 : 1);
  const unwind = input.unwind;
  // The callee's parameter size is this step's; this frame's is the next step's.
  const callee = step.calleeParameterSize;
  step.calleeParameterSize = 0;
  if (unwind?.x86Frame !== undefined) {
    const data = unwind.x86Frame(module, rva);
    const ask = { module, rva, registers, input, memory, modules, callee, step };
    if (waits(data)) return data.then((found) => x86ByFrameData(found, ask));
    return x86ByFrameData(data, ask);
  }
  return x86AfterFrameData(module, rva, registers, input, memory);
}

async function unwindAmd64Caller(
  registers: RegisterSet,
  first: boolean,
  input: WalkInput,
  memory: WalkMemory,
  modules: ModuleIndex,
): Promise<Caller | null> {
  const ip = registers['rip'] ?? 0n;
  const module = modules.at(ip);
  if (module === undefined) return null;
  const rva = Number(ip - module.base) - (first ? 0 : 1);
  const image = await modules.image(module);
  if (image !== undefined) {
    const outcome = await unwindAmd64(image, module.base, registers, memory, first);
    if (outcome.kind === 'unwound') return { registers: outcome.registers, trust: 'cfi' };
  }
  // No image (most dumps users get): a Breakpad .sym file's STACK CFI for the function.
  return await cfiCaller(module, rva, registers, input, memory);
}

interface FrameDataAsk {
  module: ModuleRef;
  rva: number;
  registers: RegisterSet;
  input: WalkInput;
  memory: WalkMemory;
  modules: ModuleIndex;
  /** The callee's parameter size (`.cbCalleeParams`). */
  callee: number;
  step: CallerStep;
}

/** x86 with the FPO / STACK WIN record found (or not) for the frame's function. */
function x86ByFrameData(data: X86FrameData | undefined, ask: FrameDataAsk): Maybe<Caller | null> {
  const { module, rva, registers, input, memory, modules } = ask;
  if (data === undefined) return x86AfterFrameData(module, rva, registers, input, memory);
  ask.step.calleeParameterSize = data.parameterSize;
  const seemsReturn = (value: bigint): boolean | Promise<boolean> => {
    const trust = returnAddressTrust(value, modules, memory);
    return waits(trust) ? trust.then((t) => t !== null) : trust !== null;
  };
  return unwindX86ByFrameData(registers, data, memory, ask.callee, seemsReturn).then((outcome) =>
    outcome.kind === 'unwound'
      ? {
          registers: outcome.registers,
          trust: 'cfi' as const,
          ...(outcome.rescanFrom === undefined ? {} : { rescanFrom: outcome.rescanFrom }),
        }
      : x86AfterFrameData(module, rva, registers, input, memory),
  );
}

/** x86 without usable frame data: STACK CFI, then the EBP chain. */
function x86AfterFrameData(
  module: ModuleRef,
  rva: number,
  registers: RegisterSet,
  input: WalkInput,
  memory: WalkMemory,
): Maybe<Caller | null> {
  const viaCfi = cfiCaller(module, rva, registers, input, memory);
  if (waits(viaCfi)) {
    return viaCfi.then((found) => found ?? framePointerCaller(registers, input, memory));
  }
  return viaCfi ?? framePointerCaller(registers, input, memory);
}

/** The x86 EBP chain's answer, when EBP points into the stack above ESP (else it means nothing). */
function framePointerCaller(
  registers: RegisterSet,
  input: WalkInput,
  memory: WalkMemory,
): Maybe<Caller | null> {
  const esp = registers['esp'] ?? 0n;
  const ebp = registers['ebp'] ?? 0n;
  if (ebp < esp || (input.stack !== undefined && ebp >= input.stack.high)) return null;
  const outcome = unwindX86ByFramePointer(registers, memory);
  return waits(outcome) ? outcome.then(chainCaller) : chainCaller(outcome);
}

function chainCaller(outcome: X86Outcome): Caller | null {
  return outcome.kind === 'unwound'
    ? { registers: outcome.registers, trust: 'frame-pointer' }
    : null;
}

/** STACK CFI for the function, when the provider has some (without a promise when it answers so). */
function cfiCaller(
  module: ModuleRef,
  rva: number,
  registers: RegisterSet,
  input: WalkInput,
  memory: WalkMemory,
): Maybe<Caller | null> {
  const unwind = input.unwind;
  if (unwind?.cfi === undefined) return null;
  const rules = unwind.cfi(module, rva);
  if (waits(rules)) return rules.then((found) => cfiApplied(found, registers, input, memory));
  return cfiApplied(rules, registers, input, memory);
}

function cfiApplied(
  rules: CfiRules | undefined,
  registers: RegisterSet,
  input: WalkInput,
  memory: WalkMemory,
): Maybe<Caller | null> {
  if (rules === undefined) return null;
  return unwindByCfi(registers, rules, memory, input.arch).then((out) =>
    out === null ? null : { registers: out, trust: 'cfi' as const },
  );
}
