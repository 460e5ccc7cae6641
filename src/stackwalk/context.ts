// CPU contexts as minidumps store them (winnt.h CONTEXT): the integer registers a walk needs, by
// name. Offsets from winnt.h: AMD64 CONTEXT is 1232 bytes with ContextFlags at 48, Rax..R15 at
// 120..240, Rip at 248, EFlags at 68; x86 CONTEXT is 716 bytes with ContextFlags at 0, Edi..Eax
// at 156..176, Ebp 180, Eip 184, SegCs 188, EFlags 192, Esp 196.
import type { RegisterSet, StackArch } from './types.js';

export const AMD64_CONTEXT_SIZE = 1232;
export const X86_CONTEXT_SIZE = 716;

const AMD64_ORDER = [
  'rax', 'rcx', 'rdx', 'rbx', 'rsp', 'rbp', 'rsi', 'rdi',
  'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15',
] as const; // prettier-ignore
const X86_ORDER = ['edi', 'esi', 'ebx', 'edx', 'ecx', 'eax', 'ebp', 'eip'] as const;

/** Registers in the order `r` prints them, per architecture. */
export const REGISTER_ORDER: Record<StackArch, readonly string[]> = {
  amd64: ['rax', 'rbx', 'rcx', 'rdx', 'rsi', 'rdi', 'rip', 'rsp', 'rbp',
    'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15', 'efl'], // prettier-ignore
  x86: ['eax', 'ebx', 'ecx', 'edx', 'esi', 'edi', 'eip', 'esp', 'ebp', 'efl'],
};

/** The registers of a CONTEXT, or null when the bytes are too short for the architecture. */
export function parseContext(bytes: Uint8Array, arch: StackArch): RegisterSet | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: RegisterSet = {};
  if (arch === 'amd64') {
    if (bytes.length < 256) return null;
    AMD64_ORDER.forEach((name, i) => (out[name] = view.getBigUint64(120 + i * 8, true)));
    out['rip'] = view.getBigUint64(248, true);
    out['efl'] = BigInt(view.getUint32(68, true));
    return out;
  }
  if (bytes.length < 200) return null;
  X86_ORDER.forEach((name, i) => (out[name] = BigInt(view.getUint32(156 + i * 4, true))));
  out['efl'] = BigInt(view.getUint32(192, true));
  out['esp'] = BigInt(view.getUint32(196, true));
  return out;
}

/** The walker's architecture for a SystemInfo ProcessorArchitecture (0 x86, 9 AMD64). */
export function archFromProcessor(processorArchitecture: number): StackArch | null {
  if (processorArchitecture === 9) return 'amd64';
  if (processorArchitecture === 0) return 'x86';
  return null;
}
