// `dump --engine dotnet-dump` as a .NET user on Linux types it, against the real CLR program and
// the pinned dotnet-dump: `dotnet-dump collect` with ProcDump's commit trigger, the file an ELF
// core read back, the target left running; and -t refused with the reason.
import { expect } from 'chai';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readElfCoreFile } from '../../../src/engine/dialects/common/elf-core-file.js';
import { parseStatusCommitBytes } from '../../../src/engine/dialects/dotnet-dump/live-dump.js';
import { runCli } from '../../helpers/cli.js';
import {
  DOTNET_TOOLS_DIR,
  nativeDotnetSuite,
  startNativeDotnet,
} from '../../helpers/dotnet-native.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

describe('dump --engine dotnet-dump (dotnet-dump collect, real .NET program on Linux)', function () {
  nativeDotnetSuite(this);

  it('-mm -m 60 -p PID DIR: waits for the commit (/proc, rss + swap), writes a mini core, the target runs on', async () => {
    // 2 MB more managed memory every 100 ms: past 60 MB within seconds.
    const target = await startNativeDotnet([
      'leak',
      '--managed-kb',
      '2048',
      '--native-kb',
      '0',
      '-n',
      '200',
      '-i',
      '100',
    ]);
    const out = join(makeTempDir('dotnet-dump-dump'), 'out');
    const run = await runCli(
      [
        'dump',
        '--engine',
        'dotnet-dump',
        '-mm',
        '-m',
        '60',
        '-p',
        String(target.pid),
        out,
        '--debugger',
        DOTNET_TOOLS_DIR,
        '--json',
      ],
      { env: target.env },
    );
    expect(run.code, run.stderr).to.equal(0);
    const summary = JSON.parse(run.stdout) as {
      dumps: { path: string; bytes: number }[];
    };
    const [dump] = summary.dumps;
    expect(dump?.path.startsWith(join(out, `cdbh-dotnet_${target.pid}_`))).to.equal(true);
    const reading = await readElfCoreFile(dump?.path ?? '');
    expect(reading.ok && reading.facts.pid).to.equal(target.pid);
    expect(statSync(dump?.path ?? '').mode & 0o777).to.equal(0o600);
    expect(run.stderr).to.match(/Trigger: commit .* >= 60\.0 MB \(-m\)/);
    expect(readdirSync(out)).to.include('triggers.ndjson');
    expect(target.exited()).to.equal(false);
  });

  it('-t is refused with the reason (no exit event on the diagnostics port), nothing written', async () => {
    const out = join(makeTempDir('dotnet-dump-t'), 'out');
    const run = await runCli(['dump', '--engine', 'dotnet-dump', '-t', '-p', '1', out]);
    expect(run.code).to.equal(2);
    expect(run.stderr).to.match(/^cdb-harness: -t: dotnet-dump cannot stop a process at its exit/m);
  });

  it('reads the commit as ProcDump for Linux does', () => {
    // /proc/self/status of a test run (proc(5) layout), two of its lines
    expect(parseStatusCommitBytes('VmRSS:\t   31744 kB\nVmSwap:\t      16 kB\n')).to.equal(
      31760 * 1024,
    );
    expect(parseStatusCommitBytes('Name:\tx\n')).to.equal(null);
  });
});
