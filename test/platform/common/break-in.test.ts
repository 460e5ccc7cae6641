// The break-in helper's answers (native/break-in/break-in.c prints them) and a helper that is not
// there: an outcome with the reason, never a throw (the caller falls back to Ctrl-C).
import { expect } from 'chai';
import { join } from 'node:path';
import { breakInWithHelper, readBreakInAnswer } from '../../../src/platform/common/break-in.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

describe('platform/common/break-in', () => {
  it('reads BROKE as broken in, whatever the line ending', () => {
    expect(readBreakInAnswer(0, 'BROKE 32\r\n')).to.deep.equal({ broke: true });
  });

  it('keeps the helper line of a refusal as the reason', () => {
    expect(readBreakInAnswer(1, 'NOT-DEBUGGED 32\n')).to.deep.equal({
      broke: false,
      reason: 'break-in.exe: NOT-DEBUGGED 32',
    });
    expect(readBreakInAnswer(1, 'FAILED OpenProcess 87\r\n')).to.deep.equal({
      broke: false,
      reason: 'break-in.exe: FAILED OpenProcess 87',
    });
  });

  it('never takes exit 0 without BROKE for a break', () => {
    const outcome = readBreakInAnswer(0, '');
    expect(outcome.broke).to.equal(false);
  });

  it('a missing helper is a reason naming the path', async () => {
    const path = join(makeTempDir('no-helper'), 'break-in.exe');
    const outcome = await breakInWithHelper(32, { env: { CDB_HARNESS_BREAK_IN: path } });
    expect(outcome.broke).to.equal(false);
    expect(outcome.broke === false && outcome.reason).to.include(path);
  });
});
