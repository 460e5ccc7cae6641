// ProcDump's -h on `dump`, end to end under Wine: the real CLI, winedbg for the dump, the real
// window probe (native/window-probe, build/native/window-probe.exe) and a test program whose
// window stops answering once the test creates its cue file (hangwin.exe says when, independently
// of the harness). Wine needs an X server to make windows: the test starts its own Xvfb and skips,
// saying why, where there is none or Wine still cannot make a window.
import { expect } from 'chai';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DumpTriggerSummary } from '../../src/cli/commands/dump-triggers.js';
import { validate } from '../../src/report/schemas.js';
import type { TriggerEventLine } from '../../src/workflows/dump/trigger-log.js';
import { windowProbePath } from '../../src/workflows/dump/hung-trigger.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { killAllTargets, startTarget, wineEnv, wineRigReady } from '../helpers/wine.js';
import { startXvfb, xvfbAvailable, type Xvfb } from '../helpers/xvfb.js';

function probeBuilt(): boolean {
  try {
    windowProbePath();
    return true;
  } catch {
    return false;
  }
}

(wineRigReady() ? describe : describe.skip)(
  'dump -h (CLI, hung window under Wine + Xvfb)',
  function () {
    this.timeout(120_000);
    let xvfb: Xvfb | null = null;
    let env: NodeJS.ProcessEnv = {};

    before(async function () {
      if (!xvfbAvailable()) {
        console.log('    skipped: no Xvfb (Debian xvfb, scripts/install-system-deps.sh)');
        this.skip();
      }
      if (!probeBuilt()) {
        console.log('    skipped: no build/native/window-probe.exe (scripts/build-native.sh)');
        this.skip();
      }
      xvfb = await startXvfb();
      env = { ...wineEnv(), DISPLAY: xvfb.display };
    });
    afterEach(killAllTargets);
    after(async () => {
      await xvfb?.stop();
    });

    it('dumps once the window has not answered for --hung-after, not while it answers', async function () {
      const cuePath = join(makeTempDir('cue'), 'hang.cue');
      const target = await startTarget('hangwin', [`Z:${cuePath.replace(/\//g, '\\')}`, '60000'], {
        env,
      });
      const shown = await target.waitForLine(/^(WINDOW|NOWINDOW)/);
      if (shown.startsWith('NOWINDOW')) {
        console.log(
          `    skipped: Wine could not make a window on Xvfb ${xvfb?.display ?? ''}: ${shown}`,
        );
        this.skip();
      }
      const dir = makeTempDir('hung');
      let pulledAt = 0;
      let answeredPolls = 0;
      const run = await runCli(
        [
          'dump',
          '-mm',
          '-h',
          '--hung-after',
          '2s',
          '--poll',
          '500ms',
          String(target.pid),
          dir,
          '--engine',
          'winedbg',
        ],
        {
          env,
          onStderr: (soFar) => {
            answeredPolls = (soFar.match(/Windows of pid \d+: 1, 0 not answering/g) ?? []).length;
            // Two polls saw the window answer: now make it hang.
            if (pulledAt === 0 && answeredPolls >= 2) {
              pulledAt = Date.now();
              writeFileSync(cuePath, 'go');
            }
          },
        },
      );
      expect(run.code, run.stderr).to.equal(0);
      expect(answeredPolls).to.be.at.least(2);
      await target.waitForLine(/^HANG start/);
      const lines = readFileSync(join(dir, 'triggers.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as TriggerEventLine);
      for (const line of lines) expect(validate('triggerEvent', line).errors).to.deep.equal([]);
      const [fired, dumped] = lines;
      expect(lines).to.have.length(2);
      expect(fired).to.include({
        trigger: 'hung-window',
        action: 'fired',
        unit: 'seconds',
        threshold: 2,
      });
      expect(fired?.value).to.be.at.least(2);
      expect(fired?.reason).to.match(/"hangwin test" \(class HangWin\) has not answered for/);
      // Not while it answered: the firing comes after the cue that made it hang.
      expect(Date.parse(fired?.time ?? '')).to.be.greaterThan(pulledAt);
      expect(dumped).to.include({ trigger: 'hung-window', action: 'dumped' });
      const dumpPath = dumped?.dumpPath ?? '';
      expect(existsSync(dumpPath) && statSync(dumpPath).size > 0, dumpPath).to.equal(true);
      expect(run.stdout + run.stderr).to.match(/Trigger: window 0x[0-9a-f]+ "hangwin test"/);
    });

    it('--json: the summary names the -h trigger and holds both lines', async function () {
      const cuePath = join(makeTempDir('cue'), 'hang.cue');
      writeFileSync(cuePath, 'go');
      const target = await startTarget('hangwin', [`Z:${cuePath.replace(/\//g, '\\')}`, '60000'], {
        env,
      });
      const shown = await target.waitForLine(/^(WINDOW|NOWINDOW)/);
      if (shown.startsWith('NOWINDOW')) this.skip();
      const dir = makeTempDir('hung-json');
      const run = await runCli(
        [
          'dump',
          '-mm',
          '-h',
          '--hung-after',
          '1s',
          '--poll',
          '300ms',
          '--json',
          String(target.pid),
          dir,
          '--engine',
          'winedbg',
        ],
        { env },
      );
      expect(run.code, run.stderr).to.equal(0);
      const summary = JSON.parse(run.stdout) as DumpTriggerSummary;
      expect(validate('dumpTriggerSummary', summary).errors).to.deep.equal([]);
      expect(summary.trigger).to.equal('-h --hung-after 1s');
      expect(summary.events.map((e) => e.action)).to.deep.equal(['fired', 'dumped']);
      expect(summary.dumps).to.have.length(1);
    });
  },
);
