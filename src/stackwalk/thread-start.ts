// The functions every Windows thread starts in: the walk ends after the start routine (nothing above it but the unused top of the stack, where a scan
// only finds leftovers). Since Vista every thread starts in ntdll!RtlUserThreadStart, which calls
// kernel32!BaseThreadInitThunk, which calls the thread's own function; on XP it was
// kernel32!BaseProcessStart (the first thread) or kernel32!BaseThreadStart. x86 PDB publics
// spell them decorated (`_RtlUserThreadStart@8`), export tables and Breakpad files plain.
import type { StackFrame } from './types.js';

const START_ROUTINES = new Set([
  'ntdll:RtlUserThreadStart',
  'kernel32:BaseProcessStart',
  'kernel32:BaseThreadStart',
]);

/** `_RtlUserThreadStart@8` → RtlUserThreadStart; `ntdll.dll` → ntdll. */
function key(frame: StackFrame): string | undefined {
  const name = frame.symbol?.function;
  const module = frame.module?.name;
  if (name === undefined || module === undefined) return undefined;
  // Sample decorated names: "_RtlUserThreadStart@8", "_BaseThreadInitThunk@12"
  const plain = name.replace(/^_/, '').replace(/@\d+$/, '');
  // Sample module names: "ntdll.dll", "KERNEL32.DLL"
  return `${module.toLowerCase().replace(/\.dll$/, '')}:${plain}`;
}

/** True when the frame is in a thread's start routine: the walk's last frame. */
export function isThreadStart(frame: StackFrame): boolean {
  // Every start routine's name says "Start": most frames are passed over without a key.
  if (frame.symbol?.function.includes('Start') !== true) return false;
  const k = key(frame);
  return k !== undefined && START_ROUTINES.has(k);
}

/** kernel32!BaseThreadInitThunk: its only caller is ntdll!RtlUserThreadStart. */
export function isThreadStartThunk(frame: StackFrame): boolean {
  if (frame.symbol?.function.includes('BaseThreadInitThunk') !== true) return false;
  return key(frame) === 'kernel32:BaseThreadInitThunk';
}
