// The CLI as a Windows process: Windows node under Wine running bin/cdb-harness.js (the built
// dist/), driving the real Debugger Engine through node-pty's ConPTY backend.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT, wineEnv } from '../helpers/wine.js';
import { runWindowsCli, requireWindowsTier, winPath } from './windows-rig.js';

interface RecordLine {
  file: string;
  ok: boolean;
  bucket?: { id: string; signature: string };
}

function records(dir: string): RecordLine[] {
  return readFileSync(join(dir, 'records.ndjson'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RecordLine);
}

/** file name (either separator) → bucket signature, for comparing hosts. */
function bucketsByFile(lines: readonly RecordLine[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const line of lines) out[line.file.split(/[\\/]/).pop() ?? ''] = line.bucket?.signature;
  return out;
}

/** The same command by the Linux CLI (built dist/), with its stdout. */
function linuxCli(args: readonly string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'cdb-harness.js'), ...args], {
    cwd: REPO_ROOT,
    env: wineEnv(),
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout });
    });
  });
}

describe('analyze as a Windows process (test:windows)', function () {
  this.timeout(200_000);
  before(requireWindowsTier);

  it("analyze --engine cdb with a relative --debugger ends by itself with the Linux tier's 6 records", async () => {
    const winOut = makeTempDir('win-analyze');
    const linuxOut = makeTempDir('linux-analyze');
    // A relative --debugger (node-pty's Windows backend looked only on PATH: "File not found:"),
    // and a run that must end by itself (node-pty's ConPTY worker and sockets held it forever).
    const [win, linux] = await Promise.all([
      runWindowsCli(
        [
          'analyze',
          'examples/dumps',
          '--engine',
          'cdb',
          '--debugger',
          'build\\dbgeng\\dbgeng-host.exe',
          '--out',
          winPath(winOut),
        ],
        { timeoutMs: 150_000 },
      ),
      linuxCli([
        'analyze',
        'examples/dumps',
        '--engine',
        'cdb',
        '--debugger',
        'build/dbgeng/cdb',
        '--out',
        linuxOut,
        // Windows reads the recorded C:\ image paths where they say (Wine's C: here): Linux sees the
        // same images only when that prefix is named (buckets never depend on ~/.wine).
        '--wine-prefix',
        wineEnv()['WINEPREFIX'] ?? '',
      ]),
    ]);
    expect(win.timedOut, `did not end by itself; stderr:\n${win.stderr}`).to.equal(false);
    expect(win.code, win.stderr).to.equal(0);
    expect(linux.code).to.equal(0);
    const winRecords = records(winOut);
    expect(winRecords.map((r) => r.ok)).to.deep.equal([true, true, true, true, true, true]);
    expect(bucketsByFile(winRecords)).to.deep.equal(bucketsByFile(records(linuxOut)));
    expect(winRecords[0]?.file).to.match(/^Z:\\/);
  });

  it('inspect and analyze --engine builtin print what the Linux CLI prints, paths aside', async () => {
    const out = makeTempDir('win-builtin');
    const win = await runWindowsCli(
      ['analyze', 'examples/dumps/av-write-a.dmp', '--engine', 'builtin', '--out', winPath(out)],
      { timeoutMs: 60_000 },
    );
    expect(win.code, win.stderr).to.equal(0);
    const [line] = records(out);
    const linuxOut = makeTempDir('linux-builtin');
    const linuxRun = await linuxCli([
      'analyze',
      'examples/dumps/av-write-a.dmp',
      '--engine',
      'builtin',
      '--out',
      linuxOut,
      '--wine-prefix',
      wineEnv()['WINEPREFIX'] ?? '',
    ]);
    expect(linuxRun.code).to.equal(0);
    expect(line?.bucket?.signature).to.match(/^0xc0000005 write \| av\+0x154a/);
    expect(line?.bucket).to.deep.equal(records(linuxOut)[0]?.bucket);
    const inspect = await runWindowsCli(['inspect', 'examples/dumps/av-write-a.dmp', '--json'], {
      timeoutMs: 60_000,
    });
    expect(inspect.code, inspect.stderr).to.equal(0);
    // The same prefix's C: named on Linux: the same ntdll.dll read, so the same walk.
    const linux = await linuxCli([
      'inspect',
      'examples/dumps/av-write-a.dmp',
      '--json',
      '--wine-prefix',
      wineEnv()['WINEPREFIX'] ?? '',
    ]);
    const split = (text: string) =>
      (JSON.parse(text) as { dumps: Record<string, unknown>[] }).dumps.map(
        ({ file, images, ...rest }) => {
          expect(file).to.match(/av-write-a\.dmp$/);
          expect(images).to.have.property('ntdll.dll');
          return { file, images, rest };
        },
      );
    const onWindows = split(inspect.stdout)[0];
    const lin = split(linux.stdout)[0];
    expect(onWindows?.rest).to.deep.equal(lin?.rest);
    // On Windows a recorded C:\ path is read where it says (Wine's C: here), never mapped into a
    // Wine prefix (none is named: every system DLL was "not found").
    expect(onWindows?.images).to.deep.include({ 'ntdll.dll': 'C:\\windows\\system32\\ntdll.dll' });
    expect(lin?.images).to.deep.include({
      'ntdll.dll': join(wineEnv()['WINEPREFIX'] ?? '', 'drive_c/windows/system32/ntdll.dll'),
    });
  });
});
