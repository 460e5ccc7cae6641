import { expect } from 'chai';
import { copyFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertValid } from '../../../src/report/schemas.js';
import { runHeapTrendFromGcDumps } from '../../../src/workflows/heap-trend/from-gcdumps.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT } from '../../helpers/wine.js';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'gcdump');
const LIVE =
  'static field Live (a System.Collections.Generic.Dictionary<System.Guid,CdbHarness.Targets.SessionState>)';

/** The three recorded snapshots copied into a folder, written a minute apart (their mtimes). */
function series(): string {
  const dir = makeTempDir('gcdumps');
  const t0 = Date.parse('2026-12-01T10:00:00Z') / 1000;
  for (const n of [1, 2, 3]) {
    const file = join(dir, `snap-${n}.gcdump`);
    copyFileSync(join(FIXTURES, `sessions-${n}.gcdump`), file);
    utimesSync(file, t0 + n * 60, t0 + n * 60);
  }
  return dir;
}

describe('heap-trend --from-gcdumps (recorded dotnet-gcdump files)', () => {
  it('orders the files by time, flags the growing type and names what holds it, no tool run', async () => {
    const dir = series();
    const { report, samples } = await runHeapTrendFromGcDumps({
      paths: [dir],
      outDir: makeTempDir('from-gcdumps-out'),
    });
    assertValid('heapTrendReport', report);
    expect(report.status).to.equal('completed');
    expect(samples.map((s) => s.elapsedMs)).to.deep.equal([0, 60_000, 120_000]);
    expect(report.intervalMs).to.equal(60_000);
    expect(report.engine).to.equal('builtin');
    expect(report.tiers?.clrTypes).to.deep.include({ tier: 'gcdump', samples: 3 });
    const flagged = report.clrTypes?.series.filter((s) => s.suspect).map((s) => s.id);
    // The payloads grow; the sessions themselves (48 bytes each) stay under --min-growth.
    expect(flagged).to.include('System.Byte[]');
    expect(report.clrTypes?.series.find((s) => s.id === 'System.Int64[]')?.suspect).to.equal(false);
    const payloads = report.retention?.find((r) => r.type === 'System.Byte[]');
    expect(payloads?.from).to.equal('gcdump-graph');
    const top = payloads?.roots[0];
    expect(top?.root).to.equal(LIVE);
    expect(top?.chain.slice(0, 2)).to.deep.equal([
      'System.Byte[]',
      'CdbHarness.Targets.SessionState',
    ]);
    // Nearly every payload in the last file is on that chain; fewer were in the first.
    expect(top?.count).to.be.at.least((payloads?.objects ?? 0) - 5);
    expect(top?.countFirst).to.be.lessThan(top?.count ?? 0);
    expect(report.tiers?.retention?.file).to.match(/snap-3\.gcdump$/);
  });

  it('a file that is not a gcdump is skipped with why, the series goes on', async () => {
    const dir = series();
    writeFileSync(join(dir, 'notes.txt'), 'not a gcdump');
    const { report } = await runHeapTrendFromGcDumps({
      paths: [dir],
      outDir: makeTempDir('from-gcdumps-out'),
    });
    expect(report.status).to.equal('completed');
    expect(report.sampleCount).to.equal(3);
    const skipped = report.inputs?.find((i) => !i.used);
    expect(skipped?.file).to.match(/notes\.txt$/);
    expect(skipped?.error).to.match(/not a readable \.gcdump/);
  });

  it('nothing readable: status failed, with a message', async () => {
    const dir = makeTempDir('gcdumps-empty');
    writeFileSync(join(dir, 'a.gcdump'), Buffer.alloc(10));
    const { report } = await runHeapTrendFromGcDumps({
      paths: [dir],
      outDir: makeTempDir('from-gcdumps-out'),
    });
    expect(report.status).to.equal('failed');
    expect(report.message).to.match(/no gcdump/);
  });
});
