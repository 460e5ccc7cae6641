// `cdb-harness dump` from the command line against the real Debugger Engine lab
// (build/dbgeng/cdb, Microsoft's dbgeng.dll under Wine): no process list is injected, so the cdb
// dialect finds the target the way a Wine host can (src/engine/dialects/cdb/wine-host-list.ts).
import { expect } from 'chai';
import type { DumpTriggerSummary } from '../../src/cli/commands/dump-triggers.js';
import { validate } from '../../src/report/schemas.js';
import { inspectDump } from '../../src/report/inspect/index.js';
import type { DumpResult } from '../../src/workflows/dump/dump.js';
import { runCli, type CliRun } from '../helpers/cli.js';
import { cue } from '../helpers/cue-file.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { killAllTargets, startTarget, wineEnv } from '../helpers/wine.js';
import { DBGENG_CDB, requireDbgengRig } from './dbgeng-rig.js';

/** `cdb-harness dump ARGS --engine cdb --debugger build/dbgeng/cdb` under the Wine env. */
function dumpWithRealEngine(args: string[], onStderr?: (text: string) => void): Promise<CliRun> {
  return runCli(['dump', ...args, '--engine', 'cdb', '--debugger', DBGENG_CDB], {
    env: wineEnv(),
    timeoutMs: 90_000,
    ...(onStderr ? { onStderr } : {}),
  });
}

describe('dump CLI against the real Debugger Engine (test:dbgeng)', function () {
  this.timeout(120_000);
  before(requireDbgengRig);
  after(killAllTargets);

  it('dump --pid N --full --engine cdb: finds the pid on the Wine host, writes a full dump', async () => {
    const target = await startTarget('idle', ['100']);
    const out = makeTempDir('dbgeng-dump-cli');
    const run = await dumpWithRealEngine(['--pid', String(target.pid), '--full', '--out', out]);
    expect(run.stderr).to.not.match(/tasklist \/fo csv \/nh/);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain(`idle.exe_${target.pid}_`);
    const json = await dumpWithRealEngine([String(target.pid), out, '-ma', '--json']);
    expect(json.code, json.stderr).to.equal(0);
    const result = JSON.parse(json.stdout) as DumpResult;
    expect(result).to.include({ pid: target.pid, processName: 'idle.exe', actualKind: 'full' });
    const dump = await inspectDump(result.path);
    expect(dump.ok && dump.process.pid).to.equal(target.pid);
    expect(await target.isRunning(1500, /^tick/)).to.equal(true);
  });

  it('-t: stops the process on its way out, writes a full dump that shows the exit, lets it end', async () => {
    const go = cue();
    const target = await startTarget('exiter', [go.wine, '3']);
    const out = makeTempDir('dbgeng-exit');
    const run = await dumpWithRealEngine(
      ['-ma', '-t', String(target.pid), out, '--json'],
      (text) => {
        if (/Waiting for pid \d+ to exit/.test(text)) go.pull();
      },
    );
    expect(run.code, run.stderr).to.equal(0);
    const summary = JSON.parse(run.stdout) as DumpTriggerSummary;
    expect(validate('dumpTriggerSummary', summary).errors).to.deep.equal([]);
    expect(summary.events.map((e) => [e.trigger, e.action, e.value])).to.deep.equal([
      ['exit', 'fired', 3],
      ['exit', 'dumped', 3],
    ]);
    expect(run.stderr).to.match(/Trigger: process exiting with code 3 \(0x3\) \(-t\)/);
    const [dump] = summary.dumps;
    expect(dump).to.include({ pid: target.pid, actualKind: 'full', verified: true });
    // The dump shows the exit: the exiting thread stands in RtlExitUserProcess, called by ExitProcess.
    const shown = await runCli(['inspect', dump?.path ?? ''], { timeoutMs: 60_000 });
    expect(shown.stdout).to.match(/ntdll!RtlExitUserProcess/);
    expect(shown.stdout).to.match(/kernel32!ExitProcess/);
    // …and the process then ended with its own code, after the detach.
    expect(await target.waitForExit(20_000)).to.equal(true);
    expect(target.log()).to.match(/EXITING 3/);
  });

  it('-c with the cdb dialect: the CPU is read from outside, the dump is taken by the real engine', async () => {
    const go = cue();
    const burner = await startTarget('cpuburn', [go.wine, '15000']);
    const out = makeTempDir('dbgeng-cpu');
    const run = await dumpWithRealEngine(
      ['-ma', '-c', '10', '-u', '-s', '1', '--poll', '500ms', String(burner.pid), out, '--json'],
      (text) => {
        if (/CPU of pid/.test(text)) go.pull();
      },
    );
    expect(run.code, run.stderr).to.equal(0);
    const summary = JSON.parse(run.stdout) as DumpTriggerSummary;
    const dumped = summary.events.find((e) => e.action === 'dumped');
    expect(dumped).to.include({ trigger: 'cpu-above', threshold: 10 });
    expect(summary.dumps[0]).to.include({ pid: burner.pid, actualKind: 'full', engine: 'cdb' });
    expect(burner.log()).to.match(/BURN start/);
  });
});
