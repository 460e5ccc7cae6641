// Names and labels of walked frames. The walker names frames itself as it finds them
// (WalkInput.symbols, at each frame's `instruction`); nameFrames is for frames walked without a
// namer, looked up the same way: at `instruction`, the offset still from the frame's address.
import type { StackFrame, SymbolProvider } from './types.js';

export async function nameFrames(
  frames: readonly StackFrame[],
  provider: SymbolProvider,
): Promise<void> {
  for (const frame of frames) {
    if (frame.module === undefined || frame.symbol !== undefined) continue;
    const hit = await provider.lookup(frame.module, Number(frame.instruction - frame.module.base));
    const back = Number(frame.address - frame.instruction);
    if (hit !== undefined) frame.symbol = { ...hit, offset: hit.offset + back };
  }
}

/** `av!crash_here+0x1a`, `ntdll!RtlUserThreadStart+0x21`, or `av+0x154a` without a name. */
export function frameLabel(frame: StackFrame): string {
  // Sample module names: "kernelbase.dll" → kernelbase, "av.exe" → av
  const module = frame.module?.name.replace(/\.(dll|exe|sys|drv|ocx)$/i, '');
  if (module === undefined) return `0x${frame.address.toString(16)}`;
  if (frame.symbol !== undefined) {
    const offset = frame.symbol.offset === 0 ? '' : `+0x${frame.symbol.offset.toString(16)}`;
    return `${module}!${frame.symbol.function}${offset}`;
  }
  return `${module}+0x${(frame.moduleOffset ?? 0).toString(16)}`;
}
