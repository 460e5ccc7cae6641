// ProcDump's CPU trigger where the target really is a Windows program: as a Windows process
// (Get-Process is all Windows offers; Wine's powershell prints nothing, which must never read as
// 0 ms), and from Linux beside Wine (the Wine loader's /proc entry, found by prefix and image
// even while argv[0] is still the loader).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { cue } from '../helpers/cue-file.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { killAllTargets, pollUntil, startTarget, TARGETS_DIR, wineEnv } from '../helpers/wine.js';
import { ENGINE_HOST, runWindowsCli, requireWindowsTier, winPath } from './windows-rig.js';

describe('CPU trigger on the Windows side (test:windows)', function () {
  this.timeout(120_000);
  before(requireWindowsTier);
  after(killAllTargets);

  it('as a Windows process: an unreadable CPU time ends the run with the reason, never 0.0 % forever', async () => {
    const target = await startTarget('idle', ['200']);
    const out = makeTempDir('win-cpu');
    const run = await runWindowsCli(
      [
        'dump',
        '-ma',
        '-c',
        '50',
        '-s',
        '2',
        String(target.pid),
        winPath(out),
        '--engine',
        'cdb',
        '--debugger',
        winPath(ENGINE_HOST),
      ],
      { timeoutMs: 60_000 },
    );
    expect(run.timedOut, `still waiting at 60 s; stderr:\n${run.stderr}`).to.equal(false);
    expect(run.code).to.not.equal(0);
    expect(run.stderr).to.match(/cannot read the CPU time of pid \d+: powershell/);
    expect(await target.isRunning(1500, /^tick/)).to.equal(true);
  });

  it('from Linux: dump -c fires during a one-core burn of a program started as `wine64 ./prog.exe`', async () => {
    const go = cue();
    const dir = makeTempDir('burn');
    const logPath = join(dir, 'stdout.log');
    const fd = openSync(logPath, 'w');
    // A low threshold of one core (-c 3 -u): on a loaded machine (load 20 on 2 cores, seen here)
    // a spinning thread gets a tenth of a core, still well above the idle program's 0-0.5 %.
    // The loader run the way a user types it, from the program's folder: its argv[0] stays
    // `/usr/lib/wine/wine64` for the first seconds.
    const child = spawn('/usr/lib/wine/wine64', ['./cpuburn.exe', go.wine, '8000'], {
      cwd: TARGETS_DIR,
      env: wineEnv(),
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    closeSync(fd);
    try {
      const pid = await pollUntil(
        () => /^PID (\d+)/m.exec(readFileSync(logPath, 'utf8'))?.[1],
        30_000,
        'the PID line',
      );
      const out = makeTempDir('burn-dump');
      const run = await runCli(
        [
          'dump',
          '-ma',
          '-c',
          '3',
          '-u',
          '-s',
          '2',
          pid,
          out,
          '--json',
          '--engine',
          'cdb',
          '--debugger',
          join(TARGETS_DIR, '..', 'dbgeng', 'cdb'),
        ],
        {
          env: wineEnv(),
          timeoutMs: 90_000,
          onStderr: (text) => {
            if (/CPU of pid/.test(text)) go.pull();
          },
        },
      );
      expect(run.code, run.stderr).to.equal(0);
      const summary = JSON.parse(run.stdout) as { events: { trigger: string; action: string }[] };
      expect(
        summary.events.some((e) => e.trigger === 'cpu-above' && e.action === 'dumped'),
      ).to.equal(true);
      expect(readFileSync(logPath, 'utf8')).to.match(/BURN start/);
    } finally {
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
  });
});
