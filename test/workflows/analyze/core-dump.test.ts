// `analyze --engine dotnet-dump` as a .NET user on Linux types it, on real core dumps of the lab's
// C# program (test/targets/dotnet): one written by the runtime itself when the program dies of an
// unhandled exception (DOTNET_DbgEnableMiniDump, https://learn.microsoft.com/dotnet/core/diagnostics/collect-dumps-crash),
// one taken by this project's `dump --engine dotnet-dump` (dotnet-dump collect) while the program
// holds a caught exception; beside them what a batch meets besides: a core of a process with no
// .NET runtime (the runtime's createdump on `sleep`), a core cut short, a Windows minidump named
// .core, an ELF executable and an empty file. Each gets its record; the batch goes on.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readSync,
  closeSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { AnalyzeDumpRecord } from '../../../src/report/analyze/analyze-record.js';
import { validate } from '../../../src/report/schemas.js';
import { runCli } from '../../helpers/cli.js';
import {
  DOTNET_TOOLS_DIR,
  nativeDotnetProgram,
  nativeDotnetSuite,
  startNativeDotnet,
} from '../../helpers/dotnet-native.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT, sleep } from '../../helpers/wine.js';

/** The runtime's createdump, beside the shared runtime the SDK runs (`dotnet --list-runtimes`). */
async function createdumpPath(): Promise<string> {
  const listed = await new Promise<string>((resolve, reject) => {
    const child = spawn('dotnet', ['--list-runtimes'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(text));
  });
  // Microsoft.NETCore.App 10.0.12 [/usr/share/dotnet/shared/Microsoft.NETCore.App]
  const m = /^Microsoft\.NETCore\.App (\S+) \[(.+)\]$/m.exec(listed);
  if (m === null) throw new Error(`no Microsoft.NETCore.App in: ${listed}`);
  return join(m[2] ?? '', m[1] ?? '', 'createdump');
}

async function run(file: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<number | null>((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore', env });
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
}

function copyHead(from: string, to: string, bytes: number): void {
  const fd = openSync(from, 'r');
  const head = Buffer.alloc(bytes);
  const read = readSync(fd, head, 0, bytes, 0);
  closeSync(fd);
  writeFileSync(to, head.subarray(0, read));
}

describe('analyze --engine dotnet-dump (Linux .NET cores, real program and tool)', function () {
  nativeDotnetSuite(this);
  let input: string;
  let records: Map<string, AnalyzeDumpRecord>;
  let stdout: string;
  let code: number | null;
  let outDir: string;
  let heldPid: number;

  before(async function () {
    const root = makeTempDir('analyze-cores');
    input = join(root, 'cores');
    mkdirSync(input);
    // 1. The runtime's own crash dump of an unhandled ArgumentException (a heap dump: type 2).
    const crashed = await startNativeDotnet(['exceptions', '--acts', 'invalid-op,unhandled'], {
      DOTNET_DbgEnableMiniDump: '1',
      DOTNET_DbgMiniDumpType: '2',
      DOTNET_DbgMiniDumpName: join(input, 'crash.%p.core'),
    });
    for (let i = 0; i < 600 && !crashed.exited(); i++) await sleep(50);
    // 2. `dump --engine dotnet-dump` of the program parked in nested catch blocks.
    const held = await startNativeDotnet([
      'exceptions',
      '--acts',
      'invalid-op,null,inner,hold',
      '--hold',
      '120000',
      '-i',
      '10',
    ]);
    await held.waitForLine(/^holding /);
    heldPid = held.pid;
    const dumped = await runCli(
      [
        'dump',
        '--engine',
        'dotnet-dump',
        '-ma',
        '-p',
        String(held.pid),
        join(root, 'held'),
        '--debugger',
        DOTNET_TOOLS_DIR,
      ],
      { env: held.env },
    );
    expect(dumped.code, dumped.stderr).to.equal(0);
    const [heldCore] = readdirSync(join(root, 'held')).filter((f) => f.startsWith('cdbh-dotnet'));
    copyFileSync(join(root, 'held', heldCore ?? ''), join(input, 'held.core'));
    await held.kill();
    // 3. A core of a process with no .NET runtime in it.
    const sleeper = spawn('sleep', ['120'], { stdio: 'ignore' });
    try {
      const made = await run(await createdumpPath(), [
        '--full',
        '-f',
        join(input, 'sleep.core'),
        String(sleeper.pid),
      ]);
      expect(made).to.equal(0);
    } finally {
      sleeper.kill();
    }
    // 4. The crash core cut to its first 64 KB (the notes survive, the runtime's memory does not).
    const [crashCore] = readdirSync(input).filter((f) => f.startsWith('crash.'));
    expect(crashCore, 'the runtime wrote no crash dump').to.not.equal(undefined);
    copyHead(join(input, crashCore ?? ''), join(input, 'cut.core'), 64 * 1024);
    // 5. A Windows minidump, an ELF executable and an empty file, all named .core.
    copyFileSync(join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp'), join(input, 'mdmp.core'));
    copyFileSync(nativeDotnetProgram(), join(input, 'program.core'));
    writeFileSync(join(input, 'empty.core'), '');

    outDir = join(root, 'out');
    const analyzed = await runCli(
      [
        'analyze',
        input,
        '--engine',
        'dotnet-dump',
        '--debugger',
        DOTNET_TOOLS_DIR,
        '--out',
        outDir,
      ],
      { timeoutMs: 170_000 },
    );
    stdout = analyzed.stdout;
    code = analyzed.code;
    records = new Map();
    for (const line of readFileSync(join(outDir, 'records.ndjson'), 'utf8').split('\n')) {
      if (line === '') continue;
      const record = JSON.parse(line) as AnalyzeDumpRecord;
      records.set(record.file.slice(input.length + 1).replace(/^crash\.\d+/, 'crash'), record);
    }
  });

  it('analyses every file of the folder, each to a record that fits the schema; exit 4 (some failed)', () => {
    expect([...records.keys()].sort()).to.deep.equal([
      'crash.core',
      'cut.core',
      'empty.core',
      'held.core',
      'mdmp.core',
      'program.core',
      'sleep.core',
    ]);
    for (const [name, record] of records) {
      expect(validate('analyzeRecord', record).errors, name).to.deep.equal([]);
      expect(record.engine).to.equal('dotnet-dump');
    }
    expect(code).to.equal(4);
  });

  it('a crash core: the signal, the managed exception and stack, the heap by type, a managed bucket', () => {
    const r = records.get('crash.core');
    expect(r?.ok, JSON.stringify(r?.error)).to.equal(true);
    expect(r?.process.name).to.equal('cdbh-dotnet');
    expect(r?.exception).to.include({ code: '0x00000006', name: 'SIGABRT' });
    const managed = r?.clrException?.exceptions[0];
    expect(managed?.type).to.equal('System.ArgumentException');
    expect(managed?.hresult).to.equal('0x80070057');
    expect(r?.frames.map((f) => f.function)).to.include(
      'CdbHarness.Targets.Program.ThrowUnhandled()',
    );
    expect(r?.clrStack?.threads[0]?.frames.length).to.be.greaterThan(0);
    expect(r?.dumpHeapStat?.types.length).to.be.greaterThan(0);
    expect(r?.threadCount).to.be.greaterThan(1);
    expect(r?.bucket?.signature).to.match(
      /^clr:System\.ArgumentException \| cdbh-dotnet\.dll!CdbHarness\.Targets\.Program\.ThrowUnhandled\(\) \| /,
    );
    for (const raw of r?.rawOutputs ?? [])
      expect(existsSync(join(outDir, raw.path))).to.equal(true);
  });

  it('a collected core of a live process: no signal, the exception being handled, its pid', () => {
    const r = records.get('held.core');
    expect(r?.ok, JSON.stringify(r?.error)).to.equal(true);
    expect(r?.exception).to.equal(null);
    expect(r?.process).to.deep.equal({ name: 'cdbh-dotnet', pid: heldPid });
    expect(r?.clrException?.exceptions.map((e) => e.type)).to.deep.equal([
      'CdbHarness.Targets.WidgetException',
      'System.FormatException',
      'System.InvalidOperationException',
    ]);
    expect(r?.bucket?.signature).to.match(/^clr:CdbHarness\.Targets\.WidgetException \| /);
    expect(stdout).to.match(/clr:CdbHarness\.Targets\.WidgetException/);
  });

  it('no .NET runtime, a minidump, an executable, an empty file: a failed record each, with the reason', () => {
    expect(records.get('sleep.core')?.error?.message).to.match(/^no \.NET runtime in this core/);
    expect(records.get('mdmp.core')?.error?.message).to.match(
      /Windows minidump .*--engine builtin/,
    );
    expect(records.get('program.core')?.error?.message).to.match(/ELF .*not a core dump/);
    expect(records.get('empty.core')?.error?.message).to.equal('the file is empty');
    for (const name of ['sleep.core', 'mdmp.core', 'program.core', 'empty.core']) {
      expect(records.get(name)?.ok, name).to.equal(false);
      expect(records.get(name)?.error?.code, name).to.equal('BAD_DUMP');
    }
  });

  it('a cut core: a partial record marked truncated, bucketed by the signal its notes keep', () => {
    const r = records.get('cut.core');
    expect(r?.truncated).to.equal(true);
    expect(r?.ok).to.equal(true);
    expect(r?.warnings[0]).to.match(/^truncated: the file ends at byte 65536 /);
    expect(r?.bucket?.signature).to.equal('0x00000006 | <no frames>');
  });
});
