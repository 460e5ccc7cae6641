// The shape of walked stacks in inspect's output (records.md "Minidump records": `threads[].stack`,
// `exception.registers`). Plain data: the walker that fills it lives above this leaf
// (src/stackwalk/, wired by src/processor/dump-stacks.ts) and is handed to inspectDump.
import type { InspectedDumpOk } from './inspect.js';

/** One frame of a walked stack (`k`): records.md "Minidump records", `threads[].stack`. */
export interface InspectedFrame {
  index: number;
  /** `av!crash_here+0x1a` / `av+0x154a` / `0x7ff…`: the frame as `k` prints it. */
  label: string;
  /** File name of the module, `av.exe`. */
  module?: string;
  /** From the module base: `0x154a`. */
  moduleOffset?: string;
  function?: string;
  /** From the function start, when named. */
  functionOffset?: string;
  file?: string;
  line?: number;
  address: string;
  returnAddress?: string;
  stackPointer: string;
  /** How the frame was found: `context`, `cfi`, `frame-pointer`, `scan-call`, `scan`. */
  trust: string;
}

export interface InspectedStack {
  /** `exception`: frame 0 is the exception context (`.ecxr`); `thread`: the thread's own. */
  context: 'exception' | 'thread';
  frames: InspectedFrame[];
  /** Why the walk ended: `end`, `limit`, `budget`, `cycle`, `lost`. */
  stop: string;
  warnings: string[];
}

/** What a stack walker hands back for one dump (see InspectDumpOptions.stacks). */
export interface InspectedStacks {
  stacks: (InspectedStack & { threadId: number })[];
  /** Registers at the exception (`.ecxr; r`): `{rip: "0x14000159b", …}`. */
  exceptionRegisters?: Record<string, string>;
  /** Where each module image used by the walk was found. */
  images: Record<string, string>;
  warnings: string[];
}

/** What a walk adds to inspect's exception: the registers at the exception (`.ecxr; r`). */
export interface WalkedException {
  registers?: Record<string, string>;
}

/** What a walk adds to each thread: its stack (`~*k`). */
export interface WalkedThread {
  stack?: InspectedStack;
}

/** What a walk adds to the dump: where it found each module image (`dump`, a path, `not found`). */
export interface WalkedDump {
  images?: Record<string, string>;
}

/** Puts walked stacks on their threads and the exception registers on the exception. */
export function applyStacks(
  result: InspectedDumpOk,
  walked: InspectedStacks,
  warnings: string[],
): void {
  for (const { threadId, ...stack } of walked.stacks) {
    const thread = result.threads.find((t) => t.id === threadId);
    if (thread) thread.stack = stack;
  }
  if (result.exception && walked.exceptionRegisters) {
    result.exception.registers = walked.exceptionRegisters;
  }
  result.images = walked.images;
  warnings.push(...walked.warnings);
}
