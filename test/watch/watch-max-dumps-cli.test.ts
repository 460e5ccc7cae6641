// ProcDump's -n: `watch -n 1` writes one dump and then ENDS (detaching; the target runs on), so a
// script waiting for the exit goes on. `--keep-watching` keeps logging after the last dump. The
// real CLI against a real program under winedbg; the program logs every raise itself.
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WatchSummary } from '../../src/workflows/watch/watch-records.js';
import { runCli } from '../helpers/cli.js';
import { killAllTargets, startTarget, wineEnv, wineRigReady } from '../helpers/wine.js';

const dirs: string[] = [];
function outDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cdbh-watch-n-'));
  dirs.push(dir);
  return dir;
}

(wineRigReady() ? describe : describe.skip)('watch -n (CLI, winedbg)', function () {
  this.timeout(120_000);
  after(async () => {
    await killAllTargets();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('-n 1 ends the session after the first dump, exit 0, target still running', async () => {
    // CLR-like first chances every 300 ms, forever, after a 2.5 s head start for the attach.
    const target = await startTarget('raise', ['-w', '2500', '-i', '300', '-n', '0', 'e0434352']);
    const out = outDir();
    const record = join(outDir(), 'transcripts');
    const run = await runCli(
      [
        'watch',
        '-p',
        String(target.pid),
        '-e',
        '1',
        '-n',
        '1',
        '-mm',
        '--out',
        out,
        '--json',
        '--record',
        record,
      ],
      { env: { ...wineEnv(), CDB_PATH: '' }, timeoutMs: 90_000 },
    );
    expect(run.code, run.stderr).to.equal(0);
    const summary = JSON.parse(run.stdout) as WatchSummary;
    expect(summary).to.include({ endReason: 'max-dumps', dumps: 1, detached: true });
    expect(readdirSync(out).filter((f) => f.endsWith('.dmp'))).to.have.length(1);
    expect(summary.targetAlive).to.equal(true);
    expect(await target.isRunning(2000, /^raise /)).to.equal(true);
    // --record is a folder: one transcript file per session, JSON lines of raw chunks.
    const [transcript, ...others] = readdirSync(record);
    expect(others).to.deep.equal([]);
    expect(transcript).to.match(/^watch-\d{6}_\d{6}\.jsonl$/);
    const first = readFileSync(join(record, transcript ?? ''), 'utf8').split('\n')[0] ?? '';
    expect(JSON.parse(first)).to.have.keys(['t', 'dir', 'data']);
  });

  it('--keep-watching logs on after the last dump until --duration', async () => {
    const target = await startTarget('raise', ['-w', '2500', '-i', '200', '-n', '0', 'e0434352']);
    const out = outDir();
    const run = await runCli(
      [
        'watch',
        '--pid',
        String(target.pid),
        '--max-dumps',
        '1',
        '--keep-watching',
        '--duration',
        '8s',
        '--mini',
        '--out',
        out,
        '--json',
      ],
      { env: { ...wineEnv(), CDB_PATH: '' }, timeoutMs: 90_000 },
    );
    expect(run.code, run.stderr).to.equal(0);
    const summary = JSON.parse(run.stdout) as WatchSummary;
    expect(summary).to.include({ endReason: 'duration', dumps: 1 });
    const lines = readFileSync(summary.logPath, 'utf8').trim().split('\n');
    expect(lines.length).to.be.at.least(3); // logging went on after the dump
    expect(summary.byReason['max-dumps']).to.be.at.least(1);
    expect(await target.isRunning(2000, /^raise /)).to.equal(true);
  });

  it('refuses --keep-watching without -n, and with --exit-after-max', async () => {
    const a = await runCli(['watch', '-p', '1', '--keep-watching', '--engine', 'winedbg']);
    expect(a.code).to.equal(2);
    expect(a.stderr).to.match(/^cdb-harness: --keep-watching needs -n\/--max-dumps/);
    const b = await runCli([
      'watch',
      '-p',
      '1',
      '-n',
      '1',
      '--keep-watching',
      '--exit-after-max',
      '--engine',
      'winedbg',
    ]);
    expect(b.code).to.equal(2);
    expect(b.stderr).to.match(/exclude each other/);
  });
});
