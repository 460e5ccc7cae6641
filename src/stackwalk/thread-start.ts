// The functions every Windows thread starts in: the walk ends after the start routine (nothing
// above it but the unused top of the stack, where a scan only finds leftovers: copies of the
// start routine's address, Wine's start-up words). Since Vista every thread starts in
// ntdll!RtlUserThreadStart, which calls kernel32!BaseThreadInitThunk, which calls the thread's own
// function; on XP it was kernel32!BaseProcessStart (the first thread) or kernel32!BaseThreadStart.
// x86 PDB publics spell them decorated (`_RtlUserThreadStart@8`), export tables and Breakpad files
// plain. Without names for ntdll (no symbols, no image: most dumps), the start is still known by
// its shape: ntdll calling into kernel32 is RtlUserThreadStart calling BaseThreadInitThunk (ntdll
// calls no other kernel32 code on a thread's way: callbacks go to user32 and the modules' own
// code), as Wine's ntdll does too (dlls/ntdll/signal_x86_64.c, RtlUserThreadStart).
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
  return `${moduleKey(frame)}:${plain}`;
}

/** True when the frame is in a thread's start routine: the walk's last frame. */
export function isThreadStart(frame: StackFrame): boolean {
  // Every start routine's name says "Start": most frames are passed over without a key.
  if (frame.symbol?.function.includes('Start') !== true) return false;
  const k = key(frame);
  return k !== undefined && START_ROUTINES.has(k);
}

/**
 * How many of a finished walk's frames to keep when it reached RtlUserThreadStart without a
 * name for it (undefined: it did not; frames past it are dropped). The thread's first frames are its last: the latest kernel32
 * frame whose caller is an unnamed ntdll frame (plus the second ntdll frame x86 has,
 * `_RtlUserThreadStart` calling `__RtlUserThreadStart`, when unwinding found it) ends the walk,
 * provided everything past it was only scanned. The latest such pair only: a scan through a
 * stack's stale middle can meet kernel32 and ntdll words in that order too, and real frames
 * follow those. Vista and later only (XP's threads start in kernel32).
 */
export function framesToThreadStart(frames: readonly StackFrame[]): number | undefined {
  for (let i = frames.length - 2; i >= 0; i--) {
    const callee = frames[i]!;
    const caller = frames[i + 1]!;
    if (!(moduleKey(callee) === 'kernel32' && unnamedNtdll(caller))) continue;
    let keep = i + 2;
    const second = frames[keep];
    if (second !== undefined && unnamedNtdll(second) && !scanned(second)) keep++;
    return frames.slice(keep).every(scanned) ? keep : undefined;
  }
  return undefined;
}

function unnamedNtdll(frame: StackFrame): boolean {
  return frame.symbol === undefined && moduleKey(frame) === 'ntdll';
}

function scanned(frame: StackFrame): boolean {
  return frame.trust === 'scan' || frame.trust === 'scan-call';
}

/** True when `probe` can be RtlUserThreadStart calling `thunk` (kernel32), though unnamed. */
export function mayStartThread(probe: StackFrame): boolean {
  return unnamedNtdll(probe);
}

/** `KERNEL32.DLL` → kernel32. */
function moduleKey(frame: StackFrame): string | undefined {
  // Sample module names: "ntdll.dll", "KERNEL32.DLL"
  return frame.module?.name.toLowerCase().replace(/\.dll$/, '');
}

/** kernel32!BaseThreadInitThunk: its only caller is ntdll!RtlUserThreadStart. */
export function isThreadStartThunk(frame: StackFrame): boolean {
  if (frame.symbol?.function.includes('BaseThreadInitThunk') !== true) return false;
  return key(frame) === 'kernel32:BaseThreadInitThunk';
}
