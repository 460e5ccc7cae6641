// The commit probe's answers (native/commit-probe/commit-probe.c prints them), and a probe that is
// not there: a reason, never a number.
import { expect } from 'chai';
import { join } from 'node:path';
import { probeCommit, readCommitProbe } from '../../../src/platform/common/commit-probe.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

describe('platform/common/commit-probe', () => {
  it('reads the committed and private totals', () => {
    expect(readCommitProbe(0, 'COMMIT 74244096 PRIVATE 54792192 REGIONS 82\r\n')).to.deep.equal({
      bytes: 74244096,
      privateBytes: 54792192,
    });
  });

  it('a process that has gone', () => {
    expect(readCommitProbe(0, 'GONE 99999\n')).to.deep.equal({ gone: true });
  });

  it('a failure keeps the probe line, never reads as 0 bytes', () => {
    expect(readCommitProbe(1, 'FAILED OpenProcess 5\n')).to.deep.equal({
      unavailable: 'commit-probe.exe exited 1: FAILED OpenProcess 5',
    });
    expect(readCommitProbe(0, '')).to.have.property('unavailable');
  });

  it('a missing probe names its path', async () => {
    const path = join(makeTempDir('no-probe'), 'commit-probe.exe');
    const reading = await probeCommit(32, { env: { CDB_HARNESS_COMMIT_PROBE: path } });
    expect(reading).to.have.property('unavailable').that.includes(path);
  });
});
