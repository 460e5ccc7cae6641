// The one number formatter of report.md, report.html and the CLI text, on awkward values: the
// figures that printed wrong when trailing zeros of the integer part were stripped (154009.6 KB as
// "15 MB", 1009.5 KB as "101 KB", 100.2 min as "1 min"), unit boundaries, rounding up into the
// next unit, signs, zero and non-finite values.
import { expect } from 'chai';
import {
  formatCount,
  formatKb,
  formatMinutes,
  formatMs,
  formatNumber,
  formatPercent,
  formatRate,
} from '../../../src/report/heap-trend/format.js';

/** One test per row: `name(value)` prints `text`. */
function table(name: string, format: (value: number) => string, rows: [number, string][]): void {
  for (const [value, text] of rows) {
    it(`${name}(${value}) is "${text}"`, () => {
      expect(format(value)).to.equal(text);
    });
  }
}

describe('heap-trend number formatting', () => {
  const kb: [number, string][] = [
    [0, '0 KB'],
    [-0, '0 KB'],
    [0.004, '0 KB'],
    [-0.004, '0 KB'],
    [1, '1 KB'],
    [1.5, '1.5 KB'],
    [9.999, '10 KB'],
    [10, '10 KB'],
    [10.04, '10 KB'],
    [10.05, '10.1 KB'],
    [100, '100 KB'],
    [100.2, '100 KB'],
    [130.27, '130 KB'],
    [200, '200 KB'],
    [1000, '1000 KB'],
    [1009.5, '1010 KB'],
    [1010, '1010 KB'],
    [1023.4, '1023 KB'],
    [1023.6, '1 MB'],
    [1024, '1 MB'],
    [1536, '1.5 MB'],
    [10 * 1024, '10 MB'],
    [102400, '100 MB'],
    [154009.6, '150 MB'],
    [204800, '200 MB'],
    [233472, '228 MB'],
    [34816, '34 MB'],
    [1024 * 1024 - 1, '1 GB'],
    [1024 * 1024, '1 GB'],
    [2 * 1024 * 1024 + 1024 * 1024 * 0.055, '2.06 GB'],
    [110 * 1024 * 1024, '110 GB'],
    [1024 * 1024 * 1024 * 2, '2 TB'],
    [-154009.6, '-150 MB'],
    [-1009.5, '-1010 KB'],
    [Number.NaN, 'n/a'],
    [Number.POSITIVE_INFINITY, 'n/a'],
  ];
  table('formatKb', formatKb, kb);

  const rates: [number, string][] = [
    [130.27, '+130 KB/min'],
    [13_337.6, '+13 MB/min'],
    [133_376, '+130 MB/min'],
    [0, '0 KB/min'],
    [0.001, '0 KB/min'],
    [-200, '-200 KB/min'],
  ];
  table('formatRate', formatRate, rates);

  const minutes: [number, string][] = [
    [0, '0 s'],
    [0.5, '30 s'],
    [0.9999, '1 min'],
    [1, '1 min'],
    [10, '10 min'],
    [100.2, '100 min'],
    [110, '110 min'],
    [119.9, '120 min'],
    [120, '2 h'],
    [600, '10 h'],
    [47 * 60, '47 h'],
    [48 * 60, '2 days'],
    [30 * 24 * 60, '30 days'],
    [Number.NaN, 'n/a'],
  ];
  table('formatMinutes', formatMinutes, minutes);

  const ms: [number, string][] = [
    [0, '0 ms'],
    [0.36, '0.4 ms'],
    [704, '704 ms'],
    [999.6, '1 s'],
    [1000, '1 s'],
    [1900, '1.9 s'],
    [10_000, '10 s'],
    [55_000, '55 s'],
    [60_000, '1 min'],
  ];
  table('formatMs', formatMs, ms);

  it('formats percentages, counts and plain numbers without touching the integer part', () => {
    expect(formatPercent(0.333)).to.equal('33 %');
    expect(formatPercent(1)).to.equal('100 %');
    expect(formatPercent(0)).to.equal('0 %');
    expect(formatCount(20736)).to.equal('20,736');
    expect(formatCount(1_000_000)).to.equal('1,000,000');
    expect(formatCount(-1000)).to.equal('-1,000');
    expect(formatCount(999)).to.equal('999');
    expect(formatNumber(100, 2)).to.equal('100');
    expect(formatNumber(100.001, 2)).to.equal('100');
    expect(formatNumber(10.5, 2)).to.equal('10.5');
    expect(formatNumber(2500, 0)).to.equal('2500');
    expect(formatNumber(-0.0001, 2)).to.equal('0');
  });
});
