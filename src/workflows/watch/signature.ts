// A small, readable signature for one live exception, used for `--once-per-bucket` and the
// `bySignature` counts: code, CLR type when known, and the top frames that belong to the program
// (frames inside the raising machinery, `RaiseException`, `KiUserExceptionDispatcher`…, are
// dropped so two throws from the same place get the same signature). Offsets are removed because
// the same function raising twice from two lines is still one bucket for a dump quota.
//
// Overlap: the analyze workflow owns cross-dump bucketing (src/report/analyze/), with a versioned
// algorithm; this one stays deliberately simple and is versioned by SIGNATURE_ALGORITHM.
import { frameWithoutOffset } from './filter.js';

export const SIGNATURE_ALGORITHM = 'watch-v1';

/** How many program frames go into the signature. */
export const SIGNATURE_FRAMES = 3;

// Frames that are the raising machinery, not the program (module part compared lower-case):
// `KERNELBASE!RaiseException`, `ntdll!RtlRaiseException`, `ntdll!KiUserExceptionDispatcher`,
// `kernel32!RaiseException`, `clr!IL_Throw`, `coreclr!IL_Throw`, `libstdc++ __cxa_throw` (mingw
// binaries are static, so `raise!__cxa_throw`, `thrower!_Unwind_RaiseException`).
const MACHINERY_MODULES = new Set([
  'ntdll',
  'kernelbase',
  'kernel32',
  'ucrtbase',
  'msvcrt',
  'vcruntime140',
  'vcruntime140_1',
]);
const MACHINERY_FUNCTION_RE =
  /^(?:RaiseException|RtlRaiseException|KiUserExceptionDispatcher|RtlDispatchException|_CxxThrowException|__cxa_throw|_Unwind_RaiseException|IL_Throw|IL_Rethrow|RaiseTheExceptionInternalOnly|DbgBreakPoint|DbgUiRemoteBreakin)$/;

// .NET 9+ dispatches managed exceptions in managed code, so its dispatcher tops every `!clrstack`
// taken at a throw (real CoreCLR 10 under Wine, test/fixtures/transcripts/dbgeng/
// watch-attach-clr-exceptions-sos.txt):
//   System.Runtime.EH.DispatchEx(System.Runtime.StackFrameIterator ByRef, ExInfo ByRef)
const MANAGED_MACHINERY_RE = /^System\.Runtime\.EH\./;

function splitFrame(frame: string): { module: string; fn: string } {
  const clean = frameWithoutOffset(frame);
  const bang = clean.indexOf('!');
  if (bang < 0) return { module: '', fn: clean };
  return { module: clean.slice(0, bang), fn: clean.slice(bang + 1) };
}

/** The frames that identify where the program raised, top first, without offsets. */
export function programFrames(frames: readonly string[], limit = SIGNATURE_FRAMES): string[] {
  const out: string[] = [];
  for (const frame of frames) {
    const { module, fn } = splitFrame(frame);
    const mod = module.toLowerCase().replace(/\.(?:dll|exe)$/, '');
    if (MACHINERY_FUNCTION_RE.test(fn)) continue;
    // Whole system modules are skipped only above the first program frame (a crash inside
    // ntdll with no program frame above it still needs something to tell buckets apart).
    if (out.length === 0 && MACHINERY_MODULES.has(mod)) continue;
    // `raise+0x13ae` (no symbol: module and offset only) or a bare address: no stable name.
    if (module === '') continue;
    out.push(module === '' ? fn : `${mod}!${fn}`);
    if (out.length >= limit) break;
  }
  if (out.length === 0) {
    // Nothing but machinery (or managed frames, which have no `module!`): fall back to the raw top
    // frames so buckets still differ, without the managed exception dispatcher.
    const managed = frames.filter((frame) => !MANAGED_MACHINERY_RE.test(frame));
    return (managed.length > 0 ? managed : frames).slice(0, limit).map(frameWithoutOffset);
  }
  return out;
}

export interface SignatureInput {
  code: string | null;
  clrType?: string | undefined;
  frames: readonly string[];
}

/** `0xe0434352 System.InvalidOperationException @ raise!raise_one < raise!main`. */
export function exceptionSignature(input: SignatureInput): string {
  let head = input.code ?? 'unknown';
  if (input.clrType !== undefined && input.clrType.length > 0) head += ` ${input.clrType}`;
  const frames = programFrames(input.frames);
  return frames.length === 0 ? head : `${head} @ ${frames.join(' < ')}`;
}
