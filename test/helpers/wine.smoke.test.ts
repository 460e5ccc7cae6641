import { expect } from 'chai';
import { startTarget, wineRigReady } from './wine.js';

describe('wine test rig', function () {
  before(function () {
    if (!wineRigReady()) this.skip();
  });

  it('starts a target whose printed pid is a positive Windows pid and whose log keeps growing', async function () {
    this.timeout(30_000);
    const target = await startTarget('idle', ['100']);
    try {
      expect(target.pid).to.be.greaterThan(0);
      expect(await target.isRunning(2000, /^tick/)).to.equal(true);
    } finally {
      await target.kill();
    }
    expect(target.exited()).to.equal(true);
  });
});
