// The text form of walked stacks for `inspect`: the registers at the exception as `.ecxr; r`
// prints them (three per line, `rax=0000000000000000`), then a `~*k` block per thread with
// cdb's columns (`# Child-SP RetAddr Call Site`, 64-bit values split by a backtick) and how each
// frame was found.
import type { InspectedDumpOk } from '../../report/inspect/inspect-json.js';
import type { InspectedStack } from '../../report/inspect/inspect-stacks.js';

/** One line telling what the `[trust]` tag after each frame means, best first. */
export const TRUST_LEGEND =
  'trust: context = registers at the stop; cfi = unwind data; frame-pointer = EBP chain; scan-call = stack word after a call; scan = stack word into code (least sure)';

export function formatStacks(dump: InspectedDumpOk): string[] {
  const lines: string[] = [];
  const registers = dump.exception?.registers;
  if (registers !== undefined) {
    lines.push('  registers at the exception (.ecxr; r):');
    const width = dump.system?.arch === 'x86' ? 8 : 16;
    // Sample value: "0x14000159b" → rip=000000014000159b
    const cells = Object.entries(registers).map(
      ([name, value]) => `${name}=${value.replace(/^0x/, '').padStart(width, '0')}`,
    );
    for (let i = 0; i < cells.length; i += 3) lines.push(`    ${cells.slice(i, i + 3).join(' ')}`);
  }
  const wide = dump.system?.arch !== 'x86';
  for (const [i, thread] of dump.threads.entries()) {
    if (thread.stack === undefined) continue;
    const from = thread.stack.context === 'exception' ? ', exception context' : '';
    lines.push(`  stack of thread ${i} id ${thread.id} (0x${thread.id.toString(16)})${from}:`);
    for (const line of stackLines(thread.stack, wide)) lines.push(`    ${line}`);
  }
  return lines;
}

export function stackLines(stack: InspectedStack, wide: boolean): string[] {
  const width = wide ? 17 : 8;
  const out = [`${' #'} ${'Child-SP'.padEnd(width)} ${'RetAddr'.padEnd(width)} Call Site`];
  stack.frames.forEach((frame, i) => {
    const caller = stack.frames[i + 1];
    const ret = caller === undefined ? '' : pointer(caller.address, wide);
    if (frame.inline === true) {
      // cdb's row for an inlined call: no stack pointer or return address of its own.
      out.push(
        `${frame.index.toString(16).padStart(2, '0')} ${'(Inline Function)'.padEnd(width)} ${(wide ? '--------`--------' : '--------').padEnd(width)} ${frame.label}${sourceOf(frame)}  [${frame.trust}]`,
      );
      return;
    }
    out.push(
      `${frame.index.toString(16).padStart(2, '0')} ${pointer(frame.stackPointer, wide)} ${ret.padEnd(width)} ${frame.label}${sourceOf(frame)}  [${frame.trust}]`,
    );
  });
  for (const warning of stack.warnings) out.push(`(${warning})`);
  return out;
}

/** ` [c:\src\app.c @ 12]`, as cdb's `k` prints a frame's source line (empty without one). */
function sourceOf(frame: InspectedStack['frames'][number]): string {
  return frame.file === undefined || frame.line === undefined
    ? ''
    : ` [${frame.file} @ ${frame.line}]`;
}

/** `0x21f6d8` → `00000000\`0021f6d8` (64-bit) or `0021f6d8` (32-bit), as cdb prints pointers. */
function pointer(hex: string, wide: boolean): string {
  // Sample: "0x21f6d8" → 21f6d8
  const digits = hex.replace(/^0x/, '').padStart(wide ? 16 : 8, '0');
  return wide ? `${digits.slice(0, 8)}\`${digits.slice(8)}` : digits;
}
