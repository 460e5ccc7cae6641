// Fixtures are real `winedbg --command "info maps <pid>"` output captured on this rig from
// build/targets/leak.exe (256 KB per 300 ms) at its ticks 7 and 17; leak.exe's own HEAPSTAT lines
// say committed = 320 KB + 256 KB per further tick for its HeapCreate heap at 0x10a0000
// (committed=4587520 at tick 17).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseWinedbgInfoMaps } from '../../src/engine/dialects/winedbg/info-maps.js';
import { assertValid } from '../../src/report/schemas.js';
import {
  groupPrivateRegions,
  RegionIdTracker,
  regionId,
} from '../../src/workflows/heap-trend/region-groups.js';
import { REPO_ROOT } from '../helpers/wine.js';

const fixture = (name: string) =>
  readFileSync(join(REPO_ROOT, 'test', 'heap-trend', 'fixtures', name), 'utf8');

describe('winedbg info maps', () => {
  const tick7 = parseWinedbgInfoMaps(fixture('winedbg-info-maps-leak-tick7.txt'));
  const tick17 = parseWinedbgInfoMaps(fixture('winedbg-info-maps-leak-tick17.txt'));

  it('reads every row: addresses, state, type, allocation protection and size', () => {
    expect(tick7.sawHeader).to.equal(true);
    expect(tick7.warnings).to.deep.equal([]);
    expect(tick7.regions).to.have.length(81);
    expect(tick7.regions[0]).to.deep.equal({
      start: '0x0',
      end: '0xffff',
      state: 'free',
      type: null,
      protect: '',
      size: 0x10000,
    });
    // 0000000000340000 000000000034ffff commit  private RW
    expect(tick7.regions.find((r) => r.start === '0x340000')).to.deep.equal({
      start: '0x340000',
      end: '0x34ffff',
      state: 'commit',
      type: 'private',
      protect: 'RW',
      size: 0x10000,
    });
    expect(tick7.regions.some((r) => r.type === 'image' && r.protect === 'RCX')).to.equal(true);
    assertValid('winedbgInfoMaps', tick7);
  });

  it('sums committed private memory, which grows with the leak', () => {
    const grown = tick17.committedPrivateBytes - tick7.committedPrivateBytes;
    // 10 ticks of 256 KB between the two captures, plus the heap's commit-ahead.
    expect(grown).to.be.at.least(10 * 256 * 1024);
    expect(grown).to.be.below(11 * 256 * 1024);
    const heapAt7 = groupPrivateRegions(tick7.regions).find((g) => g.start === 0x10a0000n);
    expect(heapAt7?.committedBytes).to.equal((320 + 6 * 256) * 1024);
  });

  it('groups one reservation (commit head + reserve tail) into one region, and follows the heap', () => {
    const groups = groupPrivateRegions(tick17.regions);
    const heap = groups.find((g) => g.start === 0x10a0000n);
    // 10a0000-146ffff commit, 1470000-149ffff reserve, 14a0000-152ffff commit, 1530000-189ffff
    // reserve: the heap's two segments touch, so they are one region.
    expect(heap?.end).to.equal(0x189ffffn);
    expect(heap?.committedBytes).to.equal(0x3d0000 + 0x90000);
    // Same as leak.exe's own HeapWalk committed total at that tick.
    expect(heap?.committedBytes).to.equal(4587520);
    expect(heap?.totalBytes).to.equal(0x800000);
    const sum = groups.reduce((s, g) => s + g.committedBytes, 0);
    expect(sum).to.equal(tick17.committedPrivateBytes);
  });

  it('keeps region ids stable when a region grows or absorbs its neighbour', () => {
    const tracker = new RegionIdTracker();
    const first = tracker.assign(groupPrivateRegions(tick7.regions));
    const second = tracker.assign(groupPrivateRegions(tick17.regions));
    expect(first.map((r) => r.id)).to.include(regionId(0x10a0000n));
    expect(second.map((r) => r.id)).to.include(regionId(0x10a0000n));
    // A region that now starts lower but overlaps the old one keeps the old id.
    const moved = tracker.assign([
      {
        start: 0x1000000n,
        end: 0x189ffffn,
        committedBytes: 1,
        totalBytes: 2,
        protect: 'RW',
        rows: 2,
      },
    ]);
    expect(moved[0]?.id).to.equal(regionId(0x10a0000n));
  });

  it('says when the process cannot be opened (it has exited)', () => {
    // Measured: `winedbg --command "info maps 99999"` prints exactly this.
    const gone = parseWinedbgInfoMaps('Cannot open process <1869f>\n');
    expect(gone.error).to.equal('Cannot open process <1869f>');
    expect(gone.regions).to.deep.equal([]);
    expect(gone.warnings).to.deep.equal([]);
  });
});
