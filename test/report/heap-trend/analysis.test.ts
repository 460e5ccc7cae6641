import { expect } from 'chai';
import fc from 'fast-check';
import {
  analyzeHeapTrend,
  type TrendSampleInput,
} from '../../../src/report/heap-trend/analysis.js';
import { fitLine, growthShare } from '../../../src/report/heap-trend/regression.js';
import { DEFAULT_SUSPECT_RULE } from '../../../src/report/heap-trend/suspect-rule.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');

/** Samples every `stepMs`; `heaps(i)` gives the heaps present in sample i. */
function samples(
  count: number,
  stepMs: number,
  heaps: (i: number) => { id: string; committedKb: number; reservedKb?: number }[],
): TrendSampleInput[] {
  return Array.from({ length: count }, (_, i) => ({
    time: new Date(T0 + i * stepMs).toISOString(),
    elapsedMs: i * stepMs,
    heaps: heaps(i),
  }));
}

describe('heap-trend analysis', () => {
  it('gives the exact slope of a linear leak in KB per minute, R² 1, growth in every interval', () => {
    // 100 KB every 30 s = 200 KB/min.
    const result = analyzeHeapTrend(
      samples(10, 30_000, (i) => [{ id: '0x10a0000', committedKb: 1000 + 100 * i }]),
    );
    const [leak] = result.series;
    expect(leak).to.include({
      id: '0x10a0000',
      samples: 10,
      firstKb: 1000,
      lastKb: 1900,
      growthKb: 900,
      slopeKbPerMin: 200,
      r2: 1,
      growthShare: 1,
      suspect: true,
      rank: 1,
    });
  });

  it('does not flag a flat heap, and says which conditions it failed', () => {
    const result = analyzeHeapTrend(samples(8, 1000, () => [{ id: 'flat', committedKb: 512 }]));
    const [flat] = result.series;
    expect(flat?.slopeKbPerMin).to.equal(0);
    expect(flat?.r2).to.equal(0);
    expect(flat?.growthShare).to.equal(0);
    expect(flat?.suspect).to.equal(false);
    expect(flat?.reasons.join(' ')).to.match(/slope 0 KB\/min is not above 1/);
  });

  it('does not flag one big step (high slope, but growth in only one interval)', () => {
    const result = analyzeHeapTrend(
      samples(10, 60_000, (i) => [{ id: 'step', committedKb: i < 5 ? 100 : 100_100 }]),
    );
    const [step] = result.series;
    expect(step?.slopeKbPerMin).to.be.greaterThan(1000);
    expect(step?.growthShare).to.be.closeTo(1 / 9, 1e-4);
    expect(step?.suspect).to.equal(false);
  });

  it('does not flag a heap that breathes up and down', () => {
    const result = analyzeHeapTrend(
      samples(12, 60_000, (i) => [{ id: 'saw', committedKb: 1000 + (i % 2) * 4000 + i * 50 }]),
    );
    expect(result.series[0]?.suspect).to.equal(false);
    expect(result.series[0]?.growthShare).to.be.closeTo(6 / 11, 1e-4);
  });

  it('follows heaps that appear and disappear mid-run (series with gaps)', () => {
    // `late` exists in samples 3..6 only; `blink` is missing from samples 4 and 5.
    const result = analyzeHeapTrend(
      samples(9, 60_000, (i) => [
        { id: 'steady', committedKb: 100 },
        ...(i >= 3 && i <= 6 ? [{ id: 'late', committedKb: 200 * i }] : []),
        ...(i === 4 || i === 5 ? [] : [{ id: 'blink', committedKb: 300 * i }]),
      ]),
    );
    const late = result.series.find((s) => s.id === 'late');
    expect(late).to.include({
      samples: 4,
      firstSampleIndex: 3,
      lastSampleIndex: 6,
      appeared: true,
      disappeared: true,
      gaps: 0,
      slopeKbPerMin: 200,
    });
    const blink = result.series.find((s) => s.id === 'blink');
    // The x axis is real time: the gap does not bend the slope of a line that continues after it.
    expect(blink).to.include({ samples: 7, gaps: 1, slopeKbPerMin: 300, r2: 1, growthShare: 1 });
    expect(blink?.appeared).to.equal(false);
    expect(result.total.samples).to.equal(9);
  });

  it('ranks suspects first, then by slope', () => {
    const result = analyzeHeapTrend(
      samples(6, 60_000, (i) => [
        { id: 'a-flat', committedKb: 9000 },
        { id: 'b-slow', committedKb: 1000 + 300 * i },
        { id: 'c-fast', committedKb: 1000 + 900 * i },
        { id: 'd-jump', committedKb: i === 5 ? 90_000 : 10 },
      ]),
    );
    expect(result.ranking).to.deep.equal(['c-fast', 'b-slow', 'd-jump', 'a-flat']);
    expect(result.series.map((s) => s.suspect)).to.deep.equal([true, true, false, false]);
  });

  it('projects the total to a limit from the total slope', () => {
    // Total grows 1 MB per minute from 1 MB: a 11 MB limit is 10 minutes after the last sample
    // at minute 0... the last sample is at minute 4 with 5 MB, so 6 more minutes.
    const result = analyzeHeapTrend(
      samples(5, 60_000, (i) => [{ id: 'h', committedKb: 1024 * (1 + i) }]),
      { limitKb: 11 * 1024 },
    );
    expect(result.projection).to.deep.equal({
      limitKb: 11 * 1024,
      slopeKbPerMin: 1024,
      lastKb: 5 * 1024,
      minutesToLimit: 6,
      reachesAt: new Date(T0 + 4 * 60_000 + 6 * 60_000).toISOString(),
    });
    expect(result.series[0]?.minutesToLimit).to.equal(6);
  });

  it('says the projection never reaches the limit when nothing grows', () => {
    const result = analyzeHeapTrend(
      samples(4, 1000, () => [{ id: 'h', committedKb: 10 }]),
      { limitKb: 2 * 1024 * 1024 },
    );
    expect(result.projection?.minutesToLimit).to.equal(null);
    expect(result.projection?.reachesAt).to.equal(null);
  });

  it('states the rule in words with its numbers', () => {
    const result = analyzeHeapTrend([], { unit: 'region' });
    expect(result.rule).to.contain('A region is a leak suspect');
    expect(result.rule).to.contain(`R² ≥ ${DEFAULT_SUSPECT_RULE.minR2}`);
    expect(result.rule).to.contain('70 % of the intervals');
    expect(result.series).to.deep.equal([]);
  });

  it('tracks reserved KB next to committed KB when samples carry it', () => {
    const result = analyzeHeapTrend(
      samples(3, 60_000, (i) => [{ id: 'h', committedKb: 10 * i, reservedKb: 1024 + 64 * i }]),
    );
    expect(result.series[0]).to.include({
      reservedFirstKb: 1024,
      reservedLastKb: 1152,
      reservedSlopeKbPerMin: 64,
    });
  });

  it('fitLine recovers any exact line (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 2, max: 50 }),
        (slope, intercept, n) => {
          const xs = Array.from({ length: n }, (_, i) => i * 0.5);
          const ys = xs.map((x) => intercept + slope * x);
          const fit = fitLine(xs, ys);
          expect(fit.slope).to.be.closeTo(slope, 1e-6);
          expect(fit.intercept).to.be.closeTo(intercept, 1e-6);
          expect(fit.r2).to.equal(slope === 0 ? 0 : 1);
        },
      ),
    );
    expect(growthShare([1, 2, 2, 3])).to.be.closeTo(2 / 3, 1e-9);
  });
});
