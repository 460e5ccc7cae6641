// `cdb-harness dump` in ProcDump's shape, end to end: the real CLI, winedbg under Wine, real
// processes. Each case checks what the program itself reports (its pid, its own leak counter)
// against what the harness says and writes.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectDump } from '../../src/report/inspect/index.js';
import { validate } from '../../src/report/schemas.js';
import type { DumpResult } from '../../src/workflows/dump/dump.js';
import { readCommit } from '../../src/workflows/dump/dump-series.js';
import type { DumpTriggerSummary } from '../../src/cli/commands/dump-triggers.js';
import { runCli } from '../helpers/cli.js';
import { killAllTargets, sleep, startTarget, wineEnv, wineRigReady } from '../helpers/wine.js';

const dirs: string[] = [];
function outDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cdbh-dump-cli-'));
  dirs.push(dir);
  return dir;
}

/** One dump prints one pretty JSON object; several print one JSON line each. */
function jsonLines(stdout: string): DumpResult[] {
  if (stdout.startsWith('{\n')) return [JSON.parse(stdout) as DumpResult];
  return stdout
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as DumpResult);
}

(wineRigReady() ? describe : describe.skip)('dump, ProcDump shape (CLI, winedbg)', function () {
  this.timeout(180_000);
  // Each case starts its own program: `-pn idle` must find exactly one.
  afterEach(killAllTargets);
  after(async () => {
    await killAllTargets();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('-ma PID DIR -n 2 -s 1: two verified dumps of that pid, spaced in time, one JSON line each; exit 4, winedbg writes them normal (mini)', async () => {
    const target = await startTarget('idle', ['100']);
    const dir = outDir();
    const run = await runCli(
      [
        'dump',
        '-ma',
        String(target.pid),
        dir,
        '-n',
        '2',
        '-s',
        '1',
        '--json',
        '--engine',
        'winedbg',
      ],
      { env: wineEnv() },
    );
    // -ma asked for full dumps; winedbg can only write normal ones: not what was asked, said why.
    expect(run.code, run.stderr).to.equal(4);
    expect(run.stderr).to.match(
      /^cdb-harness: -ma asked for a full dump; winedbg wrote a normal \(mini\) dump: .*\.dmp \(use --engine cdb/m,
    );
    const results = jsonLines(run.stdout);
    expect(results).to.have.length(2);
    for (const r of results) {
      expect(validate('dumpResult', r).errors).to.deep.equal([]);
      expect(r).to.include({ pid: target.pid, verified: true, kind: 'full' });
      const read = await inspectDump(r.path);
      expect(read.ok && read.process.pid).to.equal(target.pid);
    }
    expect(results[0]?.path).to.not.equal(results[1]?.path);
    expect(readdirSync(dir).filter((f) => f.endsWith('.dmp'))).to.have.length(2);
    // -s 1: the second dump was written at least a second after the first.
    const [first, second] = results.map((r) => statSync(r.path).mtimeMs);
    expect((second ?? 0) - (first ?? 0)).to.be.at.least(900);
    expect(run.stderr).to.match(/Dump 2 of 2/);
    expect(await target.isRunning(2000)).to.equal(true);
  });

  it('-m SIZE waits until the commit reaches the threshold, then dumps', async () => {
    // 128 KB every 100 ms (1.25 MB/s), never freed; the program logs its own running total
    // (leaked=). Slow enough that the CLI (a few seconds to start) sees the commit below first.
    const target = await startTarget('leak', ['128', '100', '0']);
    const baseline = await readCommit(target.pid, { engine: 'winedbg', env: wineEnv() });
    expect(baseline.bytes).to.be.a('number');
    const thresholdKb = Math.ceil((baseline.bytes ?? 0) / 1024) + 10 * 1024; // 10 MB more
    const leakedBefore = lastLeaked(target.log());
    const dir = outDir();
    const run = await runCli(
      [
        'dump',
        '-mm',
        '-m',
        `${thresholdKb}KB`,
        '--poll',
        '300ms',
        '-p',
        String(target.pid),
        '--out',
        dir,
        '--json',
        '--engine',
        'winedbg',
      ],
      { env: wineEnv() },
    );
    expect(run.code, run.stderr).to.equal(0);
    const commits = [...run.stderr.matchAll(/^Commit of pid \d+: ([\d.]+) MB;.*$/gm)];
    expect(commits.length, run.stderr).to.be.at.least(2); // it waited: at least one reading below
    const first = Number(commits[0]?.[1]);
    const last = Number(commits.at(-1)?.[1]);
    expect(first * 1024).to.be.below(thresholdKb);
    // MB are shown with one decimal: the last reading may print up to 0.05 MB under the KB figure.
    expect(last * 1024).to.be.at.least(thresholdKb - 52);
    expect(commits.at(-1)?.[0]).to.match(/TRIGGERED/);
    // A triggered run prints its summary: the firing and the dump, as triggers.ndjson holds them.
    const summary = JSON.parse(run.stdout) as DumpTriggerSummary;
    expect(validate('dumpTriggerSummary', summary).errors).to.deep.equal([]);
    const [result] = summary.dumps;
    expect(result).to.include({ pid: target.pid, verified: true, kind: 'mini' });
    expect(summary.events.map((e) => [e.trigger, e.action])).to.deep.equal([
      ['commit-above', 'fired'],
      ['commit-above', 'dumped'],
    ]);
    expect(summary.events[0]?.threshold).to.equal(thresholdKb * 1024);
    expect(summary.events[0]?.value).to.be.at.least(thresholdKb * 1024);
    expect(summary.events[1]?.dumpPath).to.equal(result?.path);
    expect(readFileSync(join(dir, 'triggers.ndjson'), 'utf8').trim().split('\n')).to.have.length(2);
    // The program's own counter: it really grew by about the 10 MB the trigger waited for.
    expect(lastLeaked(target.log()) - leakedBefore).to.be.at.least(8 * 1024 * 1024);
  });

  it('-ml SIZE dumps at once when the commit is already below it', async () => {
    const target = await startTarget('idle', ['100']);
    const run = await runCli(
      ['dump', '-ml', '64GB', '-pn', 'idle', outDir(), '--engine', 'winedbg'],
      { env: wineEnv() },
    );
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.match(/trigger < 65536\.0 MB: TRIGGERED/);
    expect(run.stdout).to.match(new RegExp(`idle\\.exe_${target.pid}_`));
  });

  it('-w NAME waits for the process to start, then dumps it (from a cold Wine prefix)', async () => {
    // No wineserver: the harness's first winedbg boots the prefix, and the programs Wine starts
    // then (services.exe, explorer.exe…) inherit its output. The listing must still end.
    spawnSync('wineserver', ['-k'], { env: wineEnv(), stdio: 'ignore' }); // fails when none runs
    const dir = outDir();
    let started: Promise<{ pid: number }> | undefined;
    const run = runCli(['dump', '-w', 'bigalloc.exe', dir, '--json', '--engine', 'winedbg'], {
      env: wineEnv(),
      onStderr: (soFar) => {
        // Start the program only once the CLI says it is waiting for it.
        if (started === undefined && /Waiting for a process named bigalloc\.exe/.test(soFar)) {
          started = sleep(1000).then(() => startTarget('bigalloc', ['1', '0']));
        }
      },
    });
    const done = await run;
    expect(started, done.stderr).to.not.equal(undefined);
    const target = await started;
    expect(done.code, done.stderr).to.equal(0);
    const result = JSON.parse(done.stdout) as DumpResult;
    expect(result.pid).to.equal(target?.pid);
  });

  it('refuses what ProcDump users might try but cannot work, before touching anything', async () => {
    const cases: [string[], RegExp][] = [
      [['dump', '-mp', '12'], /only ProcDump's -ma \(full\) and -mm \(mini\)/],
      [['dump', '-m', '500', '-ml', '100', '12'], /exclude each other/],
      [['dump', '-n', '0', '12'], /-n\/--count must be a whole number >= 1/],
      [['dump', '-s', 'soon', '12'], /"soon" is not a duration/],
      [['dump', '12', 'dumps', '--pid', '13'], /exactly one target/],
      [['dump', '-m', '5 apples', '12'], /is not a size/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli([...args, '--engine', 'winedbg'], { env: wineEnv() });
      expect(run.code, args.join(' ')).to.equal(2);
      expect(run.stderr, args.join(' '))
        .to.match(/^cdb-harness: /)
        .and.to.match(message);
    }
  });
});

/** The program's own `leaked=` counter on its last HEAPSTAT line. */
function lastLeaked(log: string): number {
  const all = [...log.matchAll(/leaked=(\d+)/g)];
  return Number(all.at(-1)?.[1] ?? 0);
}
