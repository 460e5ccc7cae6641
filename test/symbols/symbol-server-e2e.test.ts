// The whole way: a clang-built program with a real PDB crashes under Wine (winedbg writes the
// dump), and `analyze --engine builtin` names its frame from symbols found through a cdb symbol
// path on a real local HTTP server: a Microsoft-layout store serving only the compressed
// `symcrash.pd_` (a cabinet), and a Breakpad-layout store serving `symcrash.sym`. Downloads land
// in the cache with the store's layout and are reused; dead, failing, hanging servers and a
// corrupt PDB cost a module its names, never the batch.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { PositionedFileReader } from '../../src/minidump/file-reader.js';
import type { AnalyzeDumpRecord } from '../../src/report/analyze/analyze-record.js';
import { readImageIdentity } from '../../src/symbols/index.js';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { writeCab } from '../helpers/cab-writer.js';
import { markerLine, pdbPathOf, pdbTargetReady } from '../helpers/pdb-targets.js';
import { breakpadSymText, hasPdbUtil, pdbUtilFacts } from '../helpers/pdbutil.js';
import { deadPort, startSymbolServer, type SymbolServer } from '../helpers/symbol-server.js';
import { targetPath, wineRigReady } from '../helpers/wine.js';
import { dumpAtFirstChance } from '../minidump/helpers/real-dumps.js';

describe('symbols end to end: a Wine crash named through srv*CACHE*http://127.0.0.1', function () {
  this.timeout(120_000);
  let dir: string;
  let dump: string;
  let debugId: string;
  let codeId: string;
  const servers: SymbolServer[] = [];

  before(async function () {
    if (!wineRigReady() || !pdbTargetReady('symcrash') || !hasPdbUtil()) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'cdbh-symsrv-'));
    dump = (await dumpAtFirstChance('symcrash', [], 'symcrash-symbols.dmp')).path;
    const image = await PositionedFileReader.open(targetPath('symcrash'));
    try {
      const identity = await readImageIdentity(image, 'symcrash.exe');
      debugId = identity.codeView?.debugId ?? '';
      codeId = identity.codeId;
    } finally {
      await image.close();
    }
    expect(debugId).to.equal(pdbUtilFacts(pdbPathOf('symcrash')).debugId);
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  after(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** A store folder holding one file at NAME.pdb/ID/<file>. */
  function store(name: string, file: string, bytes: Buffer): string {
    const root = join(dir, name);
    mkdirSync(join(root, 'symcrash.pdb', debugId), { recursive: true });
    writeFileSync(join(root, 'symcrash.pdb', debugId, file), bytes);
    return root;
  }

  function compressedPdb(): Buffer {
    // gcab (a real cabinet writer) when installed, else the test's own MSZIP writer.
    const work = mkdtempSync(join(dir, 'cab-'));
    copyFileSync(pdbPathOf('symcrash'), join(work, 'symcrash.pdb'));
    const made = spawnSync('gcab', ['-c', '-z', 'symcrash.pd_', 'symcrash.pdb'], { cwd: work });
    if (made.status === 0) return readFileSync(join(work, 'symcrash.pd_'));
    return writeCab('symcrash.pdb', readFileSync(pdbPathOf('symcrash')));
  }

  async function runCli(args: string[]): Promise<{ code: number; stderr: string }> {
    const err: string[] = [];
    const stderrWrite = process.stderr.write.bind(process.stderr);
    const stdoutWrite = process.stdout.write.bind(process.stdout);
    process.stderr.write = (chunk: string | Uint8Array) => {
      err.push(String(chunk));
      return true;
    };
    process.stdout.write = (chunk: string | Uint8Array) => {
      err.push(String(chunk));
      return true;
    };
    try {
      const code = await main(['node', 'cdb-harness', 'analyze', ...args]);
      return { code, stderr: err.join('') };
    } finally {
      process.stderr.write = stderrWrite;
      process.stdout.write = stdoutWrite;
    }
  }

  function records(out: string): AnalyzeDumpRecord[] {
    return readFileSync(join(out, 'records.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AnalyzeDumpRecord);
  }

  function expectNamed(record: AnalyzeDumpRecord, format: 'pdb' | 'breakpad'): void {
    expect(record.ok).to.equal(true);
    const frame = record.frames[0];
    expect(frame?.module).to.equal('symcrash');
    expect(frame?.function).to.equal('store_value');
    expect(frame?.source).to.match(
      new RegExp(`symcrash-store\\.c @ ${markerLine('symcrash-store.c', 'CRASH-LINE')}$`),
    );
    // The walked callers, named with the line of the call in the source.
    expect(record.frames[1]?.function).to.equal('run_job');
    expect(record.frames[1]?.source).to.match(
      new RegExp(`symcrash\\.c @ ${markerLine('symcrash.c', 'CALL-LINE')}$`),
    );
    expect(record.frames[2]?.function).to.equal('main');
    expect(record.symbols?.modules).to.deep.include({
      module: 'symcrash.exe',
      status: 'loaded',
      format,
      origin: record.symbols?.modules[0]?.origin ?? '',
    });
    expect(record.notAvailable).to.not.include('frames.symbols');
    expect(record.bucket?.algorithm).to.equal('cdbh-sig-3');
    expect(record.bucket?.signature).to.equal(
      '0xc0000005 write | symcrash!store_value | symcrash!run_job | symcrash!main',
    );
  }

  it('Microsoft layout, .pd_ cabinet: named, cached in the store layout, reused', async () => {
    const server = await startSymbolServer(store('ms', 'symcrash.pd_', compressedPdb()));
    servers.push(server);
    const cache = join(dir, 'ms-cache');
    const out = join(dir, 'out-ms');
    const run = await runCli([
      dump,
      '--engine',
      'builtin',
      '--symbols',
      `srv*${cache}*${server.url}`,
      '--out',
      out,
      '--no-progress',
    ]);
    expect(run.code, run.stderr).to.equal(0);
    const [record] = records(out);
    expect(record).to.not.equal(undefined);
    expectNamed(record as AnalyzeDumpRecord, 'pdb');
    expect(record?.symbols?.modules[0]?.origin).to.equal(
      `${server.url}/symcrash.pdb/${debugId}/symcrash.pd_`,
    );
    // The system DLLs' images are asked for too (Wine's dump has no CodeView for them): 404s.
    const ours = () => server.requests.filter((r) => r.startsWith('/symcrash.pdb/'));
    expect(ours()).to.deep.equal([
      `/symcrash.pdb/${debugId}/symcrash.pdb`,
      `/symcrash.pdb/${debugId}/symcrash.pd_`,
    ]);
    // Stored expanded under the store layout, byte for byte the PDB.
    const cached = join(cache, 'symcrash.pdb', debugId, 'symcrash.pdb');
    expect(readFileSync(cached).equals(readFileSync(pdbPathOf('symcrash')))).to.equal(true);

    const again = join(dir, 'out-ms-2');
    expect(
      (
        await runCli([
          dump,
          '--engine',
          'builtin',
          '--symbol-path',
          `srv*${cache}*${server.url}`,
          '--out',
          again,
          '--no-progress',
        ])
      ).code,
    ).to.equal(0);
    expect(ours()).to.have.length(2); // the PDB is not downloaded the second time
    expectNamed(records(again)[0] as AnalyzeDumpRecord, 'pdb');
  });

  it('Breakpad layout, .sym: named with the same function and line', async () => {
    const facts = pdbUtilFacts(pdbPathOf('symcrash'));
    const sym = breakpadSymText(facts, 'symcrash.pdb', codeId, 'symcrash.exe');
    const server = await startSymbolServer(store('bp', 'symcrash.sym', Buffer.from(sym)));
    servers.push(server);
    const cache = join(dir, 'bp-cache');
    const out = join(dir, 'out-bp');
    const saved = process.env['_NT_SYMBOL_PATH'];
    process.env['_NT_SYMBOL_PATH'] = `srv*${cache}*${server.url}`;
    try {
      // No --symbols: the path comes from _NT_SYMBOL_PATH, as cdb's does.
      const run = await runCli([dump, '--engine', 'builtin', '--out', out, '--no-progress']);
      expect(run.code, run.stderr).to.equal(0);
    } finally {
      if (saved === undefined) delete process.env['_NT_SYMBOL_PATH'];
      else process.env['_NT_SYMBOL_PATH'] = saved;
    }
    expectNamed(records(out)[0] as AnalyzeDumpRecord, 'breakpad');
    expect(server.requests.filter((r) => r.startsWith('/symcrash.pdb/')).at(-1)).to.equal(
      `/symcrash.pdb/${debugId}/symcrash.sym`,
    );
    expect(existsSync(join(cache, 'symcrash.pdb', debugId, 'symcrash.sym'))).to.equal(true);
  });

  it('dead, failing and hanging servers and a corrupt PDB: reasons in the record, batch goes on', async () => {
    const hang = await startSymbolServer(join(dir, 'nothing'), 'hang');
    const fail = await startSymbolServer(join(dir, 'nothing'), 'fail');
    servers.push(hang, fail);
    const corrupt = readFileSync(pdbPathOf('symcrash')).subarray(0, 20_000);
    const corruptStore = store('corrupt', 'symcrash.pdb', corrupt);
    const inputs = join(dir, 'batch');
    mkdirSync(inputs, { recursive: true });
    for (const name of ['a.dmp', 'b.dmp', 'c.dmp']) copyFileSync(dump, join(inputs, name));
    const cache = join(dir, 'bad-cache');
    const port = await deadPort();
    const started = performance.now();
    const down: string[] = [];
    const result = await analyzeDumps({
      inputs: [inputs],
      outDir: join(dir, 'out-bad'),
      engine: 'builtin',
      symbolPath: `srv*${cache}*http://127.0.0.1:${port};srv*${cache}*${fail.url};srv*${cache}*${hang.url};${corruptStore}`,
      symbolDownloadTimeoutMs: 1000,
      env: {},
      jobs: 1,
      onEvent: (event) => {
        if (event.type === 'symbol-server-down') down.push(event.server);
      },
    });
    expect(performance.now() - started).to.be.lessThan(20_000);
    expect(result.analyzed).to.equal(3);
    const all = records(join(dir, 'out-bad'));
    expect(all.map((r) => r.ok)).to.deep.equal([true, true, true]);
    for (const record of all) {
      expect(record.frames[0]?.function).to.equal(undefined);
      expect(record.frames[0]?.offset).to.match(/^0x[0-9a-f]+$/);
      const status = record.symbols?.modules[0];
      expect(status?.status).to.equal('missing');
      expect(status?.reason).to.include(`127.0.0.1:${port}`);
      expect(status?.reason).to.include('HTTP 500');
      expect(status?.reason).to.include('deadline');
      expect(status?.reason).to.match(/not a usable PDB/);
      expect(record.warnings.some((w) => /^symbols: .*not a usable PDB/.test(w))).to.equal(true);
      expect(record.notAvailable).to.include('frames.symbols');
    }
    // A failing server is tried 3 times (transient: HTTP 5xx), a hanging one once (its deadline
    // is spent), then neither is asked again within the batch; each is said once.
    expect(hang.requests).to.have.length(1);
    expect(fail.requests).to.have.length(3);
    expect(down.sort()).to.deep.equal([`http://127.0.0.1:${port}`, fail.url, hang.url].sort());
  });

  it('inspect says once on stderr which server failed and why', async () => {
    const port = await deadPort();
    const err: string[] = [];
    const stderrWrite = process.stderr.write.bind(process.stderr);
    const stdoutWrite = process.stdout.write.bind(process.stdout);
    process.stderr.write = (chunk: string | Uint8Array) => {
      err.push(String(chunk));
      return true;
    };
    process.stdout.write = () => true;
    let code: number;
    try {
      code = await main([
        'node',
        'cdb-harness',
        'inspect',
        dump,
        dump,
        '--symbols',
        `srv*${join(dir, 'inspect-cache')}*http://127.0.0.1:${port}`,
      ]);
    } finally {
      process.stderr.write = stderrWrite;
      process.stdout.write = stdoutWrite;
    }
    expect(code).to.equal(0);
    const lines = err
      .join('')
      .split('\n')
      .filter((l) => l.includes('symbol server'));
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(
      new RegExp(
        `^warning: symbol server http://127\\.0\\.0\\.1:${port} failed: .*fetch failed.*\\(3 tries\\)`,
      ),
    );
  });
});
