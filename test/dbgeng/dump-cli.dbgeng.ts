// `cdb-harness dump` from the command line against the real Debugger Engine lab
// (build/dbgeng/cdb, Microsoft's dbgeng.dll under Wine): no process list is injected, so the cdb
// dialect finds the target the way a Wine host can (src/engine/dialects/cdb/wine-host-list.ts).
import { expect } from 'chai';
import { inspectDump } from '../../src/report/inspect/index.js';
import type { DumpResult } from '../../src/workflows/dump/dump.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { killAllTargets, startTarget, wineEnv } from '../helpers/wine.js';
import { DBGENG_CDB, requireDbgengRig } from './dbgeng-rig.js';

describe('dump CLI against the real Debugger Engine (test:dbgeng)', function () {
  this.timeout(120_000);
  before(requireDbgengRig);
  after(killAllTargets);

  it('dump --pid N --full --engine cdb: finds the pid on the Wine host, writes a full dump', async () => {
    const target = await startTarget('idle', ['100']);
    const out = makeTempDir('dbgeng-dump-cli');
    const run = await runCli(
      [
        'dump',
        '--pid',
        String(target.pid),
        '--full',
        '--engine',
        'cdb',
        '--debugger',
        DBGENG_CDB,
        '--out',
        out,
      ],
      { env: wineEnv(), timeoutMs: 90_000 },
    );
    expect(run.stderr).to.not.match(/tasklist \/fo csv \/nh/);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain(`idle.exe_${target.pid}_`);
    const json = await runCli(
      [
        'dump',
        String(target.pid),
        out,
        '-ma',
        '--engine',
        'cdb',
        '--debugger',
        DBGENG_CDB,
        '--json',
      ],
      { env: wineEnv(), timeoutMs: 90_000 },
    );
    expect(json.code, json.stderr).to.equal(0);
    const result = JSON.parse(json.stdout) as DumpResult;
    expect(result).to.include({ pid: target.pid, processName: 'idle.exe', actualKind: 'full' });
    const dump = await inspectDump(result.path);
    expect(dump.ok && dump.process.pid).to.equal(target.pid);
    expect(await target.isRunning(1500, /^tick/)).to.equal(true);
  });
});
