// The postfix language of x86 FrameData program strings (PDB FPO v2, Breakpad `STACK WIN 4`):
// tokens separated by spaces; numbers and `$reg`/`$T0`/`.raSearch` push values; `+ - * / %`
// and `@` (align down) pop two; `^` dereferences a word (32-bit on x86, 64-bit for x64 STACK CFI);
// `=` assigns the value on top to the name under it. Sample:
// "$T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + =". A STACK CFI rule is one expression
// with no `=` (`.cfa 8 - ^`): evaluateExpression gives the value it leaves on top.
// Semantics from Breakpad's PostfixEvaluator
// (https://chromium.googlesource.com/breakpad/breakpad/+/master/src/processor/postfix_evaluator-inl.h).
import type { WalkMemory } from './walk-memory.js';
import { dict } from '../common/dict.js';

/** At most this many tokens: real programs have a few dozen. */
const MAX_TOKENS = 256;
const MASKS = { 4: 0xffff_ffffn, 8: 0xffff_ffff_ffff_ffffn } as const;

/**
 * Runs `program` with `inputs` (register names with or without `$`, `.raSearch`, …); returns
 * every variable after it ran (names with their `$`), or null when the program is malformed or
 * dereferences memory that was not captured.
 */
export async function evaluatePostfix(
  program: string,
  inputs: Record<string, bigint>,
  memory: WalkMemory,
  wordSize: 4 | 8 = 4,
): Promise<Record<string, bigint> | null> {
  const ran = await run(program, inputs, memory, wordSize);
  return ran === null ? null : ran.vars;
}

/**
 * The value a STACK CFI rule expression leaves on top (`$rsp 8 +`, `.cfa -8 + ^`), or null when
 * it is malformed or reads memory that was not captured.
 */
export async function evaluateExpression(
  expression: string,
  inputs: Record<string, bigint>,
  memory: WalkMemory,
  wordSize: 4 | 8,
): Promise<bigint | null> {
  const ran = await run(expression, inputs, memory, wordSize);
  if (ran === null) return null;
  const top = ran.stack[ran.stack.length - 1];
  if (top === undefined) return null;
  return typeof top === 'bigint' ? top : (ran.vars[top] ?? null);
}

async function run(
  program: string,
  inputs: Record<string, bigint>,
  memory: WalkMemory,
  wordSize: 4 | 8,
): Promise<{ vars: Record<string, bigint>; stack: (bigint | string)[] } | null> {
  const MASK = MASKS[wordSize];
  const vars: Record<string, bigint> = dict();
  for (const [name, value] of Object.entries(inputs)) {
    vars[name.startsWith('$') || name.startsWith('.') ? name : `$${name}`] = value;
  }
  // Sample program: "$T0 $ebp = $eip $T0 4 + ^ =" → tokens split at runs of spaces
  const tokens = program.trim().split(/\s+/);
  if (tokens.length > MAX_TOKENS) return null;
  const stack: (bigint | string)[] = [];
  const value = (item: bigint | string | undefined): bigint | null => {
    if (item === undefined) return null;
    if (typeof item === 'bigint') return item;
    return vars[item] ?? null;
  };
  for (const token of tokens) {
    if (token === '') continue;
    if (token === '=') {
      const v = value(stack.pop());
      const name = stack.pop();
      if (v === null || typeof name !== 'string') return null;
      vars[name] = v;
    } else if (token === '^') {
      const address = value(stack.pop());
      if (address === null) return null;
      const word = await memory.word(address, wordSize);
      if (word === null) return null;
      stack.push(word);
    } else if (['+', '-', '*', '/', '%', '@'].includes(token)) {
      const right = value(stack.pop());
      const left = value(stack.pop());
      if (right === null || left === null) return null;
      let out: bigint;
      if (token === '+') out = left + right;
      else if (token === '-') out = left - right;
      else if (token === '*') out = left * right;
      else if (right === 0n) return null;
      else if (token === '/') out = left / right;
      else if (token === '%') out = left % right;
      else out = left & ~(right - 1n);
      stack.push(out & MASK);
      // Sample tokens: "4", "-8"
    } else if (/^-?\d+$/.test(token)) {
      stack.push(BigInt(token) & MASK);
      // Sample token: "0x10"
    } else if (/^0x[0-9a-f]+$/i.test(token)) {
      stack.push(BigInt(token) & MASK);
      // Sample tokens: "$T0", "$ebp", ".raSearch", ".cbSavedRegs"
    } else if (/^[$.]?[A-Za-z_][\w]*$/.test(token)) {
      stack.push(token);
    } else {
      return null;
    }
  }
  return { vars, stack };
}
