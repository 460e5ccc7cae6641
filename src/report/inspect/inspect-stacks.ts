// Walked stacks in inspect's output (records.md "Minidump records": `threads[].stack`,
// `exception.registers`): the processor's typed CallStack written out, addresses as `0x…`.
import { frameLabel } from '../../stackwalk/name-frames.js';
import { REGISTER_ORDER } from '../../stackwalk/context.js';
import type {
  CallStack,
  RegisterSet,
  StackArch,
  StackFrame,
} from '../../processor/process-state.js';
import { dict } from '../../common/dict.js';

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
  /**
   * An inlined call (WinDbg's `(Inline Function)` row), listed before the frame it was inlined
   * into, with that frame's address, stack pointer and trust; `index` counts it as a frame.
   */
  inline?: true;
}

export interface InspectedStack {
  /** `exception`: frame 0 is the exception context (`.ecxr`); `thread`: the thread's own. */
  context: 'exception' | 'thread';
  frames: InspectedFrame[];
  /** Why the walk ended: `end`, `limit`, `budget`, `cycle`, `lost`. */
  stop: string;
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

/** One thread's walked stack as JSON. */
export function stackJson(stack: CallStack): InspectedStack {
  return {
    context: stack.context,
    frames: stack.frames
      .flatMap((f) => [...inlineJson(f), frameJson(f)])
      .map((f, index) => (f.index === index ? f : { ...f, index })),
    stop: stack.stop,
    warnings: [...stack.warnings],
  };
}

/** One frame as `k` shows it, with its parts: label, module offset, function, source line. */
export function frameJson(f: StackFrame): InspectedFrame {
  return {
    index: f.index,
    label: frameLabel(f),
    ...(f.module === undefined ? {} : { module: f.module.name }),
    ...(f.moduleOffset === undefined ? {} : { moduleOffset: hex(f.moduleOffset) }),
    ...(f.symbol === undefined
      ? {}
      : { function: f.symbol.function, functionOffset: hex(f.symbol.offset) }),
    ...(f.symbol?.file === undefined ? {} : { file: f.symbol.file }),
    ...(f.symbol?.line === undefined ? {} : { line: f.symbol.line }),
    address: hex(f.address),
    ...(f.returnAddress === undefined ? {} : { returnAddress: hex(f.returnAddress) }),
    stackPointer: hex(f.stackPointer),
    trust: f.trust,
  };
}

/** The inlined calls active in a frame, innermost first, as rows of their own (index set later). */
function inlineJson(f: StackFrame): InspectedFrame[] {
  const module = f.module?.name.replace(/\.(dll|exe|sys|drv|ocx)$/i, '');
  return (f.inlines ?? []).map((hit) => {
    const offset = hit.offset === 0 ? '' : `+${hex(hit.offset)}`;
    return {
      index: f.index,
      label: `${module === undefined ? '' : `${module}!`}${hit.function}${offset}`,
      ...(f.module === undefined ? {} : { module: f.module.name }),
      ...(f.moduleOffset === undefined ? {} : { moduleOffset: hex(f.moduleOffset) }),
      function: hit.function,
      functionOffset: hex(hit.offset),
      ...(hit.file === undefined ? {} : { file: hit.file }),
      ...(hit.line === undefined ? {} : { line: hit.line }),
      address: hex(f.address),
      ...(f.returnAddress === undefined ? {} : { returnAddress: hex(f.returnAddress) }),
      stackPointer: hex(f.stackPointer),
      trust: f.trust,
      inline: true,
    };
  });
}

/** `{rax: "0x0", rip: "0x14000159b", …}` in `r` order, the records' `0x…` form. */
export function registerText(registers: RegisterSet, arch: StackArch): Record<string, string> {
  const out: Record<string, string> = dict();
  for (const name of REGISTER_ORDER[arch]) {
    const value = registers[name];
    if (value !== undefined) out[name] = hex(value);
  }
  return out;
}

function hex(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}
