// One x86 unwind step. With frame data from symbol files (FPO / STACK WIN) the caller is found
// from the function's frame sizes (a STACK WIN 4 program string is evaluated by postfix.ts);
// otherwise by the EBP chain: the caller's EIP at [ebp+4], its ESP at ebp+8 and its EBP at
// [ebp] (the standard `push ebp; mov ebp, esp` frame: Intel SDM vol. 1 §6.5.6, and Breakpad's
// StackwalkerX86::GetCallerByEBPAtBase). The walker checks what this returns and falls back to a
// bounded scan when the chain is broken.
import { evaluatePostfix } from './postfix.js';
import type { RegisterSet, X86FrameData } from './types.js';
import type { WalkMemory } from './walk-memory.js';

export type X86Outcome =
  | {
      kind: 'unwound';
      registers: RegisterSet;
      how: 'cfi' | 'frame-pointer';
      /**
       * Frame data only: where to scan on when the return address it gave is no return address
       * (`.raSearchStart + 4`, as Breakpad's GetCallerByWindowsFrameInfo does): the words below
       * are the function's own locals and saved registers.
       */
      rescanFrom?: bigint;
    }
  | { kind: 'failed'; reason: string };

/** Breakpad's alignment scan: words above `.raSearchStart` tried for a return address. */
const ALIGNMENT_WORDS = 3;

/**
 * The EBP-chain step. Answers without a promise when both words are at hand
 * (WalkMemory.u32Now: a cached line or memory that answers at once), as for every frame of a dump
 * held in memory: most x86 frames of dumps without symbols are found this way, and each promise
 * made and awaited here was a third of the walk's own allocation (the peer corpus's heap profile).
 * The reads, their order and the budget spent are the asynchronous form's.
 */
export function unwindX86ByFramePointer(
  registers: RegisterSet,
  memory: WalkMemory,
): X86Outcome | Promise<X86Outcome> {
  const ebp = registers['ebp'] ?? 0n;
  const savedEbp = memory.u32Now(ebp);
  if (savedEbp === undefined) return framePointerLater(registers, memory, ebp, undefined);
  const eip = memory.u32Now(ebp + 4n);
  if (eip === undefined) return framePointerLater(registers, memory, ebp, savedEbp);
  return framePointerOutcome(registers, ebp, savedEbp, eip);
}

/** The rest of unwindX86ByFramePointer once a read must wait (`savedEbp` when already read). */
async function framePointerLater(
  registers: RegisterSet,
  memory: WalkMemory,
  ebp: bigint,
  savedEbp: bigint | null | undefined,
): Promise<X86Outcome> {
  const saved = savedEbp === undefined ? await memory.u32(ebp) : savedEbp;
  const eip = await memory.u32(ebp + 4n);
  return framePointerOutcome(registers, ebp, saved, eip);
}

function framePointerOutcome(
  registers: RegisterSet,
  ebp: bigint,
  savedEbp: bigint | null,
  eip: bigint | null,
): X86Outcome {
  if (savedEbp === null || eip === null) {
    return { kind: 'failed', reason: `frame at ebp 0x${ebp.toString(16)} was not captured` };
  }
  return {
    kind: 'unwound',
    registers: { ...registers, eip, esp: ebp + 8n, ebp: savedEbp },
    how: 'frame-pointer',
  };
}

/**
 * FPO / FrameData: the return address sits above the callee's parameters (a stdcall callee pops
 * them on return, and a frame's ESP is its value before the call), the locals and the saved
 * registers: `.raSearchStart = $esp + .cbCalleeParams + cbLocals + cbSavedRegs`, moved up to
 * three words to the first that `seemsReturn` accepts (an ESP aligned by the function), as
 * Breakpad's StackwalkerX86::GetCallerByWindowsFrameInfo computes it
 * (https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/src/processor/stackwalker_x86.cc).
 */
export async function unwindX86ByFrameData(
  registers: RegisterSet,
  frame: X86FrameData,
  memory: WalkMemory,
  calleeParameterSize = 0,
  seemsReturn?: (value: bigint) => boolean | Promise<boolean>,
): Promise<X86Outcome> {
  const esp = registers['esp'] ?? 0n;
  let raSearch =
    esp + BigInt(calleeParameterSize) + BigInt(frame.localSize) + BigInt(frame.savedRegisterSize);
  const program = frame.programString ?? '';
  if (seemsReturn !== undefined && (program === '' || program.includes('.raSearch'))) {
    for (let i = 0; i <= ALIGNMENT_WORDS; i++) {
      const at = raSearch + BigInt(4 * i);
      const word = await memory.u32(at);
      if (word === null) break;
      if (await seemsReturn(word)) {
        raSearch = at;
        break;
      }
    }
  }
  const rescanFrom = raSearch + 4n;
  if (program !== '') {
    const result = await evaluatePostfix(
      program,
      {
        ...registers,
        '.raSearch': raSearch,
        '.raSearchStart': raSearch,
        '.cbCalleeParams': BigInt(calleeParameterSize),
        '.cbSavedRegs': BigInt(frame.savedRegisterSize),
        '.cbLocals': BigInt(frame.localSize),
        '.cbParams': BigInt(frame.parameterSize),
      },
      memory,
    );
    if (result === null) return { kind: 'failed', reason: 'program string did not evaluate' };
    const eip = result['$eip'];
    const espOut = result['$esp'];
    if (eip === undefined || espOut === undefined) {
      return { kind: 'failed', reason: 'program string set no $eip/$esp' };
    }
    const out: RegisterSet = { ...registers, eip, esp: espOut };
    for (const name of ['ebp', 'ebx', 'esi', 'edi']) {
      const value = result[`$${name}`];
      if (value !== undefined) out[name] = value;
    }
    return { kind: 'unwound', registers: out, how: 'cfi', rescanFrom };
  }
  const eip = await memory.u32(raSearch);
  if (eip === null) return { kind: 'failed', reason: 'return address slot was not captured' };
  const out: RegisterSet = { ...registers, eip, esp: raSearch + 4n };
  if (frame.allocatesBasePointer) {
    // The function pushed EBP first, so it sits just under the saved registers' end.
    const savedEbp = await memory.u32(raSearch - 4n);
    if (savedEbp !== null) out['ebp'] = savedEbp;
  }
  return { kind: 'unwound', registers: out, how: 'cfi', rescanFrom };
}
