// Debugger engines enrich, never degrade: the processor's walk of a real dump (the committed
// example cpp-throw.dmp, walked with export names) is the baseline a debugger's frames must meet.
import { expect } from 'chai';
import { join } from 'node:path';
import type { AnalyzeFrame } from '../../../src/report/analyze/analyze-record.js';
import { builtinFields } from '../../../src/workflows/analyze/builtin-record.js';
import { chooseFrames } from '../../../src/workflows/analyze/frame-baseline.js';
import { processSupplied } from '../../helpers/supplied.js';
import { REPO_ROOT } from '../../helpers/wine.js';

async function walkedFrames(): Promise<AnalyzeFrame[]> {
  const state = await processSupplied(
    join(REPO_ROOT, 'examples', 'dumps', 'cpp-throw.dmp'),
    { threads: 'exception' },
    { recordedPaths: false },
  );
  if (!state.ok) throw new Error(state.error.message);
  return builtinFields(state).frames;
}

describe('frame baseline (debugger frames vs the processor walk)', () => {
  it('keeps the walk when the debugger gave no frames (a step that failed)', async () => {
    const walked = await walkedFrames();
    expect(walked.length).to.be.greaterThan(1);
    const chosen = chooseFrames([], walked);
    expect(chosen.from).to.equal('builtin');
    expect(chosen.frames).to.deep.equal(walked);
    expect(chosen.note).to.match(/builtin walk kept/);
  });

  it('keeps the walk when the debugger has fewer named frames than its sure part', async () => {
    // The sure part of the walk with a name: frame 0 named the way a symbol file would.
    const walked = await walkedFrames();
    walked[0] = { ...walked[0], function: 'RaiseException' };
    const unnamed = walked.map(({ function: _f, ...rest }) => ({
      ...rest,
      trust: 'debugger' as const,
    }));
    expect(chooseFrames(unnamed, walked).from).to.equal('builtin');
  });

  it('takes the debugger frames when they name at least as much (what only it knows)', async () => {
    const walked = await walkedFrames();
    const named = walked.map((f, i) => ({ ...f, function: `f${i}`, trust: 'debugger' as const }));
    const chosen = chooseFrames(named, walked);
    expect(chosen.from).to.equal('debugger');
    expect(chosen.frames).to.deep.equal(named);
    expect(chosen.note).to.equal(undefined);
  });

  it('takes the debugger frames when the walk found nothing sure past the exception frame', async () => {
    const walked = await walkedFrames();
    // Without images every caller of this dump is a scan: only frame 0 is sure.
    expect(walked.slice(1).every((f) => f.trust === 'scan' || f.trust === 'scan-call')).to.equal(
      true,
    );
    const shorter = [{ ...walked[0], trust: 'debugger' as const }];
    expect(chooseFrames(shorter, walked).from).to.equal('debugger');
  });
});
