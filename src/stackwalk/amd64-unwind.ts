// One x64 unwind step from a function's .pdata/.xdata: RUNTIME_FUNCTION → UNWIND_INFO, every
// unwind code (push, alloc small/large, set frame pointer, save non-volatile near/far, XMM saves,
// machine frames, v2 epilog codes), chained info, and the epilogue check for frame 0. It follows
// the documented algorithm (https://learn.microsoft.com/en-us/cpp/build/exception-handling-x64)
// as Wine's RtlVirtualUnwind implements it (dlls/ntdll/signal_x86_64.c in the Wine sources).
import type { ImageView, RegisterSet } from './types.js';
import { readRvaKept } from './image-reads.js';
import type { WalkMemory } from './walk-memory.js';

/** UNWIND_INFO register numbers. */
export const AMD64_REGISTERS = [
  'rax', 'rcx', 'rdx', 'rbx', 'rsp', 'rbp', 'rsi', 'rdi',
  'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15',
] as const; // prettier-ignore

const UWOP_PUSH_NONVOL = 0;
const UWOP_ALLOC_LARGE = 1;
const UWOP_ALLOC_SMALL = 2;
const UWOP_SET_FPREG = 3;
const UWOP_SAVE_NONVOL = 4;
const UWOP_SAVE_NONVOL_FAR = 5;
const UWOP_EPILOG = 6;
const UWOP_SPARE_CODE = 7;
const UWOP_SAVE_XMM128 = 8;
const UWOP_SAVE_XMM128_FAR = 9;
const UWOP_PUSH_MACHFRAME = 10;
const UNW_FLAG_CHAININFO = 4;
/** Chains deeper than this are corrupt (real ones are 1–2 long). */
const MAX_CHAIN = 32;

export type UnwindOutcome =
  | { kind: 'unwound'; registers: RegisterSet; how: 'cfi' | 'leaf' | 'epilog' | 'machine-frame' }
  | { kind: 'failed'; reason: string };

/** Slots (16-bit units) an unwind code takes, by op (and op info for ALLOC_LARGE). */
function slots(op: number, info: number): number {
  switch (op) {
    case UWOP_ALLOC_LARGE:
      return info === 0 ? 2 : 3;
    case UWOP_SAVE_NONVOL:
    case UWOP_SAVE_XMM128:
    case UWOP_EPILOG:
      return 2;
    case UWOP_SAVE_NONVOL_FAR:
    case UWOP_SAVE_XMM128_FAR:
    case UWOP_SPARE_CODE:
      return 3;
    default:
      return 1;
  }
}

/**
 * The caller's registers for a thread stopped at `registers.rip` in `image` (loaded at `base`).
 * `exact` is true for frame 0 (the instruction pointer is where the thread is, so the prologue
 * and epilogue checks apply); for callers the return address is looked up at rip - 1.
 */
export async function unwindAmd64(
  image: ImageView,
  base: bigint,
  registers: RegisterSet,
  memory: WalkMemory,
  exact: boolean,
): Promise<UnwindOutcome> {
  const rip = registers['rip'] ?? 0n;
  const rva = Number(rip - base);
  const lookup = exact ? rva : rva - 1;
  let fn = image.runtimeFunctionNow?.(lookup);
  if (fn === undefined) fn = await image.runtimeFunction(lookup);
  const regs: RegisterSet = { ...registers };
  if (fn === null) {
    // No unwind data: a leaf function, which never moves RSP: the return address is at RSP.
    return popReturn(regs, memory, 'leaf');
  }
  if (exact) {
    const epilog = await emulateEpilog(image, rva, regs, memory);
    if (epilog !== null) return epilog;
  }
  let info = fn.unwindInfo;
  let begin = fn.begin;
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    const head = await readRvaKept(image, info, 4);
    if (head === null || head.length < 4)
      return { kind: 'failed', reason: 'unwind info not readable' };
    const version = head[0]! & 7;
    const flags = head[0]! >> 3;
    if (version !== 1 && version !== 2) {
      return { kind: 'failed', reason: `unwind info version ${version}` };
    }
    const count = head[2]!;
    const frameReg = head[3]! & 15;
    const frameOffset = (head[3]! >> 4) * 16;
    // The codes, padded to an even count, then a chained RUNTIME_FUNCTION when flagged.
    const codes = await readRvaKept(image, info + 4, (count + (count & 1)) * 2 + 12);
    if (codes === null || codes.length < count * 2) {
      return { kind: 'failed', reason: 'unwind codes not readable' };
    }
    const view = new DataView(codes.buffer, codes.byteOffset, codes.byteLength);
    // Inside the prologue, codes whose instruction has not run yet are skipped. Chained entries
    // describe the parent's prologue, which has always run by the time the child runs.
    const offset = depth === 0 ? rva - begin : Number.MAX_SAFE_INTEGER;
    let frame = regs['rsp'] ?? 0n;
    if (frameReg !== 0) {
      const setAt = findSetFrame(codes, count);
      if (setAt !== null && offset >= setAt) {
        frame = (regs[AMD64_REGISTERS[frameReg]!] ?? 0n) - BigInt(frameOffset);
      }
    }
    for (let i = 0; i < count;) {
      const codeOffset = codes[i * 2]!;
      const op = codes[i * 2 + 1]! & 15;
      const opInfo = codes[i * 2 + 1]! >> 4;
      const size = slots(op, opInfo);
      if (i + size > count) return { kind: 'failed', reason: 'unwind code runs past its count' };
      if (op === UWOP_EPILOG || op === UWOP_SPARE_CODE || codeOffset > offset) {
        i += size;
        continue;
      }
      const rsp = regs['rsp'] ?? 0n;
      switch (op) {
        case UWOP_PUSH_NONVOL: {
          const value = await u64(memory, rsp);
          if (value === null) return unreadable(rsp);
          regs[AMD64_REGISTERS[opInfo]!] = value;
          regs['rsp'] = rsp + 8n;
          break;
        }
        case UWOP_ALLOC_LARGE:
          regs['rsp'] =
            rsp +
            (opInfo === 0
              ? BigInt(view.getUint16(i * 2 + 2, true)) * 8n
              : BigInt(view.getUint32(i * 2 + 2, true)));
          break;
        case UWOP_ALLOC_SMALL:
          regs['rsp'] = rsp + BigInt(opInfo * 8 + 8);
          break;
        case UWOP_SET_FPREG:
          regs['rsp'] = (regs[AMD64_REGISTERS[frameReg]!] ?? 0n) - BigInt(frameOffset);
          break;
        case UWOP_SAVE_NONVOL:
        case UWOP_SAVE_NONVOL_FAR: {
          const at =
            frame +
            (op === UWOP_SAVE_NONVOL
              ? BigInt(view.getUint16(i * 2 + 2, true)) * 8n
              : BigInt(view.getUint32(i * 2 + 2, true)));
          const value = await u64(memory, at);
          if (value === null) return unreadable(at);
          regs[AMD64_REGISTERS[opInfo]!] = value;
          break;
        }
        case UWOP_SAVE_XMM128:
        case UWOP_SAVE_XMM128_FAR:
          break; // XMM registers are not tracked: no caller needs them to be found
        case UWOP_PUSH_MACHFRAME: {
          // The CPU pushed SS, RSP, EFLAGS, CS, RIP (and an error code when info is 1).
          const top = rsp + (opInfo === 1 ? 8n : 0n);
          const ip = await u64(memory, top);
          const sp = await u64(memory, top + 24n);
          if (ip === null || sp === null) return unreadable(top);
          regs['rip'] = ip;
          regs['rsp'] = sp;
          return { kind: 'unwound', registers: regs, how: 'machine-frame' };
        }
        default:
          return { kind: 'failed', reason: `unknown unwind code ${op}` };
      }
      i += size;
    }
    if ((flags & UNW_FLAG_CHAININFO) === 0) break;
    const chainAt = count + (count & 1);
    if (chainAt * 2 + 12 > codes.length) return { kind: 'failed', reason: 'chained info cut' };
    begin = view.getUint32(chainAt * 2, true);
    info = view.getUint32(chainAt * 2 + 8, true);
  }
  return popReturn(regs, memory, 'cfi');
}

function findSetFrame(codes: Uint8Array, count: number): number | null {
  for (let i = 0; i < count;) {
    const op = codes[i * 2 + 1]! & 15;
    if (op === UWOP_SET_FPREG) return codes[i * 2]!;
    i += slots(op, codes[i * 2 + 1]! >> 4);
  }
  return null;
}

async function popReturn(
  regs: RegisterSet,
  memory: WalkMemory,
  how: 'cfi' | 'leaf' | 'epilog',
): Promise<UnwindOutcome> {
  const rsp = regs['rsp'] ?? 0n;
  const ip = await u64(memory, rsp);
  if (ip === null) return unreadable(rsp);
  regs['rip'] = ip;
  regs['rsp'] = rsp + 8n;
  return { kind: 'unwound', registers: regs, how };
}

function unreadable(address: bigint): UnwindOutcome {
  return { kind: 'failed', reason: `stack memory at 0x${address.toString(16)} was not captured` };
}

/**
 * Frame 0 may be inside an epilogue, where the unwind codes no longer describe the stack. The
 * documented epilogue form is: optional `add rsp, imm` or `lea rsp, [fp + disp]`, then `pop`s,
 * then `ret` or a `jmp` (tail call). When the bytes at RIP match it, the rest of the epilogue is
 * run on the registers instead of the unwind codes.
 */
async function emulateEpilog(
  image: ImageView,
  rva: number,
  regs: RegisterSet,
  memory: WalkMemory,
): Promise<UnwindOutcome | null> {
  const code = await readRvaKept(image, rva, 64);
  if (code === null) return null;
  const next: RegisterSet = { ...regs };
  let at = 0;
  const byte = (i: number) => code[i] ?? 0;
  const rex = byte(at);
  // add rsp, imm8 / imm32: 48 83 c4 XX, 48 81 c4 XX XX XX XX
  if (rex === 0x48 && byte(at + 1) === 0x83 && byte(at + 2) === 0xc4) {
    next['rsp'] = (next['rsp'] ?? 0n) + BigInt(byte(at + 3));
    at += 4;
  } else if (rex === 0x48 && byte(at + 1) === 0x81 && byte(at + 2) === 0xc4) {
    const view = new DataView(code.buffer, code.byteOffset, code.byteLength);
    next['rsp'] = (next['rsp'] ?? 0n) + BigInt(view.getInt32(at + 3, true));
    at += 7;
  } else if ((rex === 0x48 || rex === 0x49) && byte(at + 1) === 0x8d) {
    // lea rsp, [reg + disp8 / disp32]: 48 8d 65 XX (rbp), 49 8d 65 XX (r13)
    const modrm = byte(at + 2);
    const mod = modrm >> 6;
    if (((modrm >> 3) & 7) !== 4 || (modrm & 7) === 4 || mod === 0 || mod === 3) return null;
    const reg = AMD64_REGISTERS[(modrm & 7) + ((rex & 1) << 3)]!;
    const view = new DataView(code.buffer, code.byteOffset, code.byteLength);
    const disp = mod === 1 ? view.getInt8(at + 3) : view.getInt32(at + 3, true);
    next['rsp'] = (next[reg] ?? 0n) + BigInt(disp);
    at += mod === 1 ? 4 : 7;
  }
  for (;;) {
    const b = byte(at);
    if (b >= 0x58 && b <= 0x5f) {
      if (!(await pop(next, AMD64_REGISTERS[b - 0x58]!, memory))) return null;
      at += 1;
    } else if (b === 0x41 && byte(at + 1) >= 0x58 && byte(at + 1) <= 0x5f) {
      if (!(await pop(next, AMD64_REGISTERS[byte(at + 1) - 0x58 + 8]!, memory))) return null;
      at += 2;
    } else break;
  }
  const end = byte(at);
  const isReturn = end === 0xc3 || end === 0xc2 || (end === 0xf3 && byte(at + 1) === 0xc3);
  const isJump = end === 0xe9 || end === 0xeb || (end === 0xff && byte(at + 1) === 0x25);
  // Only a real epilogue counts: nothing popped and no stack adjustment means a plain `ret`
  // in a function with unwind codes, which is also an epilogue (all prologue work undone).
  if (!isReturn && !isJump) return null;
  if (isJump && at === 0) return null; // a jump at RIP alone is not an epilogue
  return popReturn(next, memory, 'epilog');
}

async function pop(regs: RegisterSet, name: string, memory: WalkMemory): Promise<boolean> {
  const rsp = regs['rsp'] ?? 0n;
  const value = await u64(memory, rsp);
  if (value === null) return false;
  regs[name] = value;
  regs['rsp'] = rsp + 8n;
  return true;
}

/** A stack word, without a promise when the walk's memory has it at hand. */
function u64(memory: WalkMemory, address: bigint): bigint | null | Promise<bigint | null> {
  const now = memory.u64Now(address);
  return now !== undefined ? now : memory.u64(address);
}
