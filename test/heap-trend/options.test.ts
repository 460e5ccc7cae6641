import { expect } from 'chai';
import { heapTrendOptionsFromCli } from '../../src/cli/commands/heap-trend.js';
import { crossedThresholds } from '../../src/workflows/heap-trend/threshold-dumps.js';
import { parseDuration, parseSizeKb, parseSizeList } from '../../src/units.js';

describe('heap-trend options', () => {
  it('reads durations and sizes the way the help shows them', () => {
    expect(parseDuration('500ms')).to.equal(500);
    expect(parseDuration('5s')).to.equal(5000);
    expect(parseDuration('1.5m')).to.equal(90_000);
    expect(parseDuration('2h')).to.equal(7_200_000);
    expect(parseDuration('30')).to.equal(30_000);
    expect(() => parseDuration('5q')).to.throw(/not a duration/);
    expect(() => parseDuration('0s')).to.throw(/greater than zero/);
    expect(parseSizeKb('512KB')).to.equal(512);
    expect(parseSizeKb('100MB')).to.equal(102_400);
    expect(parseSizeKb('2GB')).to.equal(2 * 1024 * 1024);
    expect(parseSizeKb('1.5g')).to.equal(1.5 * 1024 * 1024);
    expect(parseSizeKb('300')).to.equal(300 * 1024);
    expect(parseSizeList('200MB, 100MB,100MB')).to.deep.equal([102_400, 204_800]);
  });

  it('fires each --dump-at step once, smallest first, even when one sample jumps past several', () => {
    const fired = new Set<number>([100]);
    expect(crossedThresholds([100, 200, 300, 400], fired, 350)).to.deep.equal([200, 300]);
    expect(crossedThresholds([100, 200], new Set(), 50)).to.deep.equal([]);
  });

  it('turns CLI text into workflow options, and refuses what cannot run', () => {
    const plan = heapTrendOptionsFromCli(
      {
        pid: '1234',
        interval: '500ms',
        samples: '20',
        engine: 'winedbg',
        out: '/tmp/x',
        dumpAt: '100MB,200MB',
        limit: '2GB',
        minGrowth: '1MB',
      },
      {},
      'linux',
    );
    expect(plan).to.deep.include({
      target: { pid: 1234 },
      engine: 'winedbg',
      intervalMs: 500,
      samples: 20,
      outDir: '/tmp/x',
      dumpAtKb: [102_400, 204_800],
      limitKb: 2 * 1024 * 1024,
      rule: { minGrowthKb: 1024 },
    });
    expect(() => heapTrendOptionsFromCli({}, {}, 'linux')).to.throw(/exactly one target/);
    expect(() => heapTrendOptionsFromCli({ pid: '0x10' }, {}, 'linux')).to.throw(/decimal/);
    expect(() =>
      heapTrendOptionsFromCli({ pid: '1', samples: '3', duration: '1m' }, {}, 'linux'),
    ).to.throw(/exclude each other/);
    expect(() => heapTrendOptionsFromCli({ pid: '1', engine: 'gdb' }, {}, 'linux')).to.throw(
      /cdb or winedbg/,
    );
  });

  it('--retention-budget sets the time of the retention step, with --clr only', () => {
    const plan = heapTrendOptionsFromCli(
      { pid: '1', clr: true, engine: 'dotnet-dump', retentionBudget: '5m' },
      {},
      'linux',
    );
    expect(plan.retentionBudgetMs).to.equal(300_000);
    expect(() =>
      heapTrendOptionsFromCli({ pid: '1', engine: 'winedbg', retentionBudget: '5m' }, {}, 'linux'),
    ).to.throw(/--retention-budget go with --clr/);
  });

  it('says plainly that umdh exists only on Windows', () => {
    expect(() =>
      heapTrendOptionsFromCli({ pid: '1', engine: 'winedbg', umdh: true }, {}, 'linux'),
    ).to.throw(/umdh\.exe .* exists only on Windows/);
  });

  it('--clr on Linux runs in tiers: --types-every sets the gcdump cadence, --dump-per-sample the old path', () => {
    const tiers = heapTrendOptionsFromCli({ pid: '1', clr: true, typesEvery: '3' }, {}, 'linux');
    expect(tiers.engine).to.equal('dotnet-dump');
    expect(tiers.typesEvery).to.equal(3);
    expect(tiers.dumpPerSample).to.equal(undefined);
    const old = heapTrendOptionsFromCli({ pid: '1', clr: true, dumpPerSample: true }, {}, 'linux');
    expect(old.dumpPerSample).to.equal(true);
    expect(() =>
      heapTrendOptionsFromCli({ pid: '1', engine: 'winedbg', typesEvery: '3' }, {}, 'linux'),
    ).to.throw(/go with --clr on Linux/);
    expect(() =>
      heapTrendOptionsFromCli(
        { pid: '1', clr: true, typesEvery: '3', dumpPerSample: true },
        {},
        'linux',
      ),
    ).to.throw(/--dump-per-sample reads types from every dump/);
    expect(() =>
      heapTrendOptionsFromCli({ pid: '1', clr: true, typesEvery: '0' }, {}, 'linux'),
    ).to.throw(/--types-every/);
  });
});
