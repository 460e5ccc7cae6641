// ProcDump's triggers on `dump`, end to end under Wine: the real CLI, winedbg, and test programs
// that report what they did independently of the harness (cpuburn: when it burned; commitsteps:
// each commit step; exiter: its exit). No fixed sleeps: the programs act on a cue file the test
// creates once the CLI says it is watching.
import { expect } from 'chai';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DumpTriggerSummary } from '../../src/cli/commands/dump-triggers.js';
import { validate } from '../../src/report/schemas.js';
import { readCommit } from '../../src/workflows/dump/dump-series.js';
import type { TriggerEventLine } from '../../src/workflows/dump/trigger-log.js';
import { runCli } from '../helpers/cli.js';
import { cue } from '../helpers/cue-file.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { killAllTargets, startTarget, wineEnv, wineRigReady } from '../helpers/wine.js';

const MB = 1024 * 1024;

function triggerLines(dir: string): TriggerEventLine[] {
  return readFileSync(join(dir, 'triggers.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as TriggerEventLine);
}

(wineRigReady() ? describe : describe.skip)('dump triggers (CLI, winedbg under Wine)', function () {
  this.timeout(180_000);
  afterEach(killAllTargets);

  it('-c fires after the CPU held for -s seconds, not before; -cl once the program went idle', async () => {
    const go = cue();
    const burner = await startTarget('cpuburn', [go.wine, '12000']);
    const dir = makeTempDir('cpu');
    let burnSeenAt = 0;
    let pulled = false;
    const idle = makeTempDir('cpu-idle');
    let belowRun: ReturnType<typeof runCli> | null = null;
    const startBelow = () =>
      runCli(
        [
          'dump',
          '-mm',
          '-cl',
          '5',
          '-u',
          '-s',
          '1',
          '--poll',
          '500ms',
          '--json',
          String(burner.pid),
          idle,
          '--engine',
          'winedbg',
        ],
        { env: wineEnv() },
      );
    const above = await runCli(
      [
        'dump',
        '-mm',
        '-c',
        '10',
        '-u',
        '-s',
        '2',
        '--poll',
        '500ms',
        String(burner.pid),
        dir,
        '--engine',
        'winedbg',
      ],
      {
        env: wineEnv(),
        // The burn starts once the CLI reads the CPU: the hold is measured from there.
        onStderr: (text) => {
          if (!pulled && /CPU of pid/.test(text)) {
            pulled = true;
            go.pull();
            void burner.waitForLine(/^BURN start/).then(() => (burnSeenAt = Date.now()));
          }
          // -cl starts watching while the program still burns: it must wait for the idle.
          if (belowRun === null && /Trigger: /.test(text)) belowRun = startBelow();
        },
      },
    );
    expect(above.code, above.stderr).to.equal(0);
    const [fired, dumped] = triggerLines(dir);
    for (const line of [fired, dumped])
      expect(validate('triggerEvent', line).errors).to.deep.equal([]);
    expect(fired).to.include({
      trigger: 'cpu-above',
      action: 'fired',
      threshold: 10,
      pid: burner.pid,
    });
    expect(fired?.heldFor).to.be.at.least(2);
    expect(fired?.value).to.be.at.least(10);
    // Not before: the firing came at least -s seconds after the program said it began burning.
    expect(Date.parse(fired?.time ?? '') - burnSeenAt).to.be.at.least(2000 - 100);
    expect(above.stderr).to.match(
      /^\[\d\d:\d\d:\d\d\] Trigger: CPU [\d.]+% >= 10% of one core for [\d.]+ s \(-c 10 -u -s 2\)$/m,
    );
    expect(dumped).to.include({ action: 'dumped' });
    expect(statSync(dumped?.dumpPath ?? '').size).to.be.greaterThan(0);
    expect(burner.log()).to.not.match(/BURN end/); // it fired while the program still burned

    expect(belowRun).to.not.equal(null);
    const below = await (belowRun as unknown as ReturnType<typeof runCli>);
    expect(below.code, below.stderr).to.equal(0);
    const summary = JSON.parse(below.stdout) as DumpTriggerSummary;
    expect(validate('dumpTriggerSummary', summary).errors).to.deep.equal([]);
    expect(summary.events.map((e) => `${e.trigger} ${e.action}`)).to.deep.equal([
      'cpu-below fired',
      'cpu-below dumped',
    ]);
    // It waited through the burn: readings at or above 5 % came first, the firing after the end.
    expect(below.stderr).to.match(/CPU of pid \d+: (?:[5-9]|\d\d)\.\d%/);
    expect(burner.log()).to.match(/BURN end/);
  });

  it('-m STEP,STEP,STEP writes one dump at each commit step crossed, none twice', async () => {
    const go = cue();
    const target = await startTarget('commitsteps', ['16', '2500', '3', go.wine]);
    const base = (await readCommit(target.pid, { engine: 'winedbg', env: wineEnv() })).bytes ?? 0;
    // Thresholds in the middle of steps 1, 2 and 3 (16 MB each).
    const steps = [8, 24, 40].map((mb) => Math.round(base / 1024 + mb * 1024));
    const dir = makeTempDir('steps');
    const run = await runCli(
      [
        'dump',
        '-mm',
        '-m',
        steps.map((kb) => `${kb}KB`).join(','),
        '--poll',
        '300ms',
        '--json',
        String(target.pid),
        dir,
        '--engine',
        'winedbg',
      ],
      {
        env: wineEnv(),
        // The steps begin once the CLI has read the commit below the first threshold.
        onStderr: (text) => {
          if (/Commit of pid/.test(text)) go.pull();
        },
      },
    );
    expect(run.code, run.stderr).to.equal(0);
    const summary = JSON.parse(run.stdout) as DumpTriggerSummary;
    const dumped = summary.events.filter((e) => e.action === 'dumped');
    expect(dumped.map((e) => e.threshold)).to.deep.equal(steps.map((kb) => kb * 1024));
    for (const event of dumped) {
      expect(event.value).to.be.at.least(event.threshold ?? Infinity);
      expect(event.value).to.be.below((event.threshold ?? 0) + 16 * MB + 4 * MB);
    }
    expect(new Set(dumped.map((e) => e.dumpPath)).size).to.equal(3);
    expect(summary.dumps).to.have.length(3);
    expect(triggerLines(dir)).to.have.length(6);
    // The program's own account: three steps at least were committed when the last dump was written.
    expect(target.log()).to.match(/COMMIT step=3/);
  });

  it('a target that exits before any trigger: exit 5, said plainly, nothing written', async () => {
    const go = cue();
    const target = await startTarget('exiter', [go.wine, '3']);
    const dir = makeTempDir('exit-first');
    const run = await runCli(
      ['dump', '-c', '90', '-s', '30', String(target.pid), dir, '--engine', 'winedbg'],
      {
        env: wineEnv(),
        onStderr: (text) => {
          if (/CPU of pid/.test(text)) go.pull();
        },
      },
    );
    expect(run.code, run.stderr).to.equal(5);
    expect(run.stderr).to.match(
      new RegExp(
        `cdb-harness: the target \\(pid ${target.pid}\\) exited before any trigger fired \\(-c\\); no dump was written`,
      ),
    );
    expect(existsSync(join(dir, 'triggers.ndjson'))).to.equal(false);
  });

  it('Ctrl-C while waiting: exit 130, the dumps and trigger lines written so far are kept', async () => {
    const target = await startTarget('idle', ['100']);
    const dir = makeTempDir('ctrl-c');
    let interrupted = false;
    // The first step (1 MB) is crossed at once; the second (64 GB) never is.
    const run = await runCli(
      [
        'dump',
        '-mm',
        '-m',
        '1,65536',
        '--poll',
        '300ms',
        String(target.pid),
        dir,
        '--engine',
        'winedbg',
      ],
      {
        env: wineEnv(),
        onStderr: (text, child) => {
          // One Ctrl-C: a second one after the harness has let go of SIGINT would end it outright.
          if (!interrupted && /Dump complete/.test(text) && /trigger >= 65536\.0 MB$/m.test(text)) {
            interrupted = true;
            child.kill('SIGINT');
          }
        },
      },
    );
    expect(run.code, run.stderr).to.equal(130);
    const lines = triggerLines(dir);
    expect(lines.map((l) => l.action)).to.deep.equal(['fired', 'dumped']);
    expect(statSync(lines[1]?.dumpPath ?? '').size).to.be.greaterThan(0);
    expect(await target.isRunning(1500, /^tick/)).to.equal(true);
  });
});
