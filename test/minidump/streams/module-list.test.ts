// VS_FIXEDFILEINFO versions as the module list writes them (src/minidump/streams/module-list.ts):
// `a.b.c.d` from the high and low 16 bits of the MS and LS words
// (https://learn.microsoft.com/windows/win32/api/verrsrc/ns-verrsrc-vs_fixedfileinfo), checked
// against the fields on seeded random words and on every digit count.
import { expect } from 'chai';
import { fixedFileVersion } from '../../../src/minidump/streams/module-list.js';
import { xorshift32 } from '../../helpers/seeded-random.js';

const fields = (ms: number, ls: number): string =>
  [ms >>> 16, ms & 0xffff, ls >>> 16, ls & 0xffff].map(String).join('.');

describe('module list versions (src/minidump/streams/module-list.ts)', () => {
  it('writes kernel32 6.1.7600.16385 as its fields say', () => {
    expect(fixedFileVersion((6 << 16) | 1, (7600 << 16) | 16385)).to.equal('6.1.7600.16385');
  });

  it('writes seeded random versions, of every width, as their fields say', () => {
    const next = xorshift32(7);
    const widths = [0, 9, 10, 99, 100, 999, 1000, 9999, 10000, 65535];
    for (let n = 0; n < 2000; n++) {
      // Mostly random words; every 4th made of the digit-count edges.
      const edge = (): number => widths[next() % widths.length]!;
      const ms = n % 4 === 0 ? ((edge() << 16) | edge()) >>> 0 : next();
      const ls = n % 4 === 0 ? ((edge() << 16) | edge()) >>> 0 : next();
      expect(fixedFileVersion(ms, ls), `0x${ms.toString(16)} 0x${ls.toString(16)}`).to.equal(
        fields(ms, ls),
      );
    }
  });
});
