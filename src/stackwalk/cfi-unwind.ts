// One unwind step from Breakpad `STACK CFI` rules (x86 and x64 alike): the canonical frame address
// from the `.cfa` rule, the return address from `.ra` (which may read `.cfa`), and every register
// the rules recover; callee-saved registers the rules do not mention keep their values (the
// function did not touch them), as Breakpad's CFIFrameInfo::FindCallerRegs does
// (https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/src/processor/cfi_frame_info.cc).
// The caller's stack pointer is the CFA. Rule grammar:
// https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/docs/symbol_files.md#stack-cfi-records
import { evaluateExpression } from './postfix.js';
import type { CfiRules, RegisterSet, StackArch } from './types.js';
import type { WalkMemory } from './walk-memory.js';
import { dict } from '../common/dict.js';

/** Registers a Windows callee must preserve (the x64 and x86 calling conventions). */
const CALLEE_SAVED: Record<StackArch, readonly string[]> = {
  amd64: ['rbx', 'rbp', 'rdi', 'rsi', 'r12', 'r13', 'r14', 'r15'],
  x86: ['ebx', 'ebp', 'esi', 'edi'],
};

/** The caller's registers, or null when a rule does not evaluate (malformed, memory missing). */
export async function unwindByCfi(
  registers: RegisterSet,
  rules: CfiRules,
  memory: WalkMemory,
  arch: StackArch,
): Promise<RegisterSet | null> {
  const wordSize = arch === 'amd64' ? 8 : 4;
  const inputs: Record<string, bigint> = dict();
  for (const [name, value] of Object.entries(registers)) inputs[`$${name}`] = value;
  const cfa = await evaluateExpression(rules.cfa, inputs, memory, wordSize);
  if (cfa === null) return null;
  inputs['.cfa'] = cfa;
  const ra = await evaluateExpression(rules.ra, inputs, memory, wordSize);
  if (ra === null) return null;
  const out: RegisterSet = {};
  for (const name of CALLEE_SAVED[arch]) {
    const value = registers[name];
    if (value !== undefined) out[name] = value;
  }
  for (const [register, expression] of Object.entries(rules.registers)) {
    const value = await evaluateExpression(expression, inputs, memory, wordSize);
    // A register whose rule cannot be evaluated is unknown in the caller, not fatal.
    if (value !== null) out[register.replace(/^\$/, '')] = value;
  }
  out[arch === 'amd64' ? 'rip' : 'eip'] = ra;
  out[arch === 'amd64' ? 'rsp' : 'esp'] = cfa;
  return out;
}
