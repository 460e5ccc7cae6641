// Puts names on walked frames through any SymbolProvider. A caller frame is looked up at its
// return address minus one (the call instruction's last byte), as debuggers do, so a call that
// is the last instruction of a function names that function and not the next one; the offset
// shown is still from the return address.
import type { StackFrame, SymbolProvider } from './types.js';

export async function nameFrames(
  frames: readonly StackFrame[],
  provider: SymbolProvider,
): Promise<void> {
  for (const frame of frames) {
    // Named during the walk already (WalkInput.symbols): one lookup per frame.
    if (frame.symbol !== undefined) continue;
    if (frame.module === undefined || frame.moduleOffset === undefined) continue;
    const back = frame.index > 0 ? 1 : 0;
    const hit = await provider.lookup(frame.module, frame.moduleOffset - back);
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
