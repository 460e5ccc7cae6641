// Debugger engines enrich, never degrade: the processor's walk of the dump is the baseline of
// every record, and a debugger's `k` replaces it only when it is at least as good as the walk's
// sure part: as many named frames and, as many named, as many frames. The sure part leaves out
// frames found by scanning (a stack word that looks like a return address is a guess a debugger
// with symbols need not repeat). A debugger that lost the stack (a dump it could not unwind,
// symbols it could not load, a step that timed out) then costs the record nothing, and
// `--engine auto` may pick a debugger safely.
import type { AnalyzeFrame } from '../../report/analyze/analyze-record.js';

export interface FrameChoice {
  frames: AnalyzeFrame[];
  /** Which list was kept. */
  from: 'debugger' | 'builtin';
  /** Why the builtin frames were kept, for the record's warnings. */
  note?: string;
}

export function chooseFrames(
  debuggerFrames: readonly AnalyzeFrame[],
  builtinFrames: readonly AnalyzeFrame[],
): FrameChoice {
  const named = (frames: readonly AnalyzeFrame[]) =>
    frames.filter((f) => f.function !== undefined && f.function !== '').length;
  const sure = builtinFrames.filter((f) => f.trust !== 'scan' && f.trust !== 'scan-call');
  const ours = named(sure);
  const theirs = named(debuggerFrames);
  const better =
    debuggerFrames.length > 0 &&
    (theirs > ours || (theirs === ours && debuggerFrames.length >= sure.length));
  if (better || builtinFrames.length === 0)
    return { frames: [...debuggerFrames], from: 'debugger' };
  return {
    frames: [...builtinFrames],
    from: 'builtin',
    note: `frames: the builtin walk kept (${sure.length} sure frames, ${ours} named); the debugger gave ${debuggerFrames.length} (${theirs} named)`,
  };
}
