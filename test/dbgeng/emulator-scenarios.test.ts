// The real Debugger Engine's session, replayed by the cdb emulator over a real pty: analyze's cdb
// path on examples/dumps/av-write-a.dmp, answered byte for byte from what dbgeng printed for that
// very dump (scenario test/emulator/scenarios/dbgeng-analyze-av.json). Runs in the ordinary tier,
// without Wine or Microsoft's binaries, and must give the record the real engine gave, whatever
// HOME holds: an empty folder, or the project's Wine prefix at ~/.wine (it failed whenever ~/.wine
// existed: the walk then took images from there, issue 34).
import { expect } from 'chai';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '../../src/report/schemas.js';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { REPO_ROOT } from '../helpers/wine.js';

const EMULATOR = {
  file: process.execPath,
  args: ['--import', 'tsx', join(REPO_ROOT, 'test', 'analyze', 'emulator-per-dump.ts')],
};

interface Row {
  ok: boolean;
  error?: unknown;
  exception?: { code: string; chance?: string | null; accessType?: string };
  frames: { module?: string; function?: string; offset?: string }[];
  notAvailable: string[];
  analyze?: unknown;
}

describe('the real engine replayed: analyze through the cdb emulator (dbgeng transcript)', function () {
  this.timeout(60_000);
  const scratch: string[] = [];
  after(() => {
    for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  for (const home of ['an empty HOME', 'the project prefix at ~/.wine']) {
    it(`gives the record the real engine gave on the same dump, with ${home}`, async function () {
      const prefix = join(REPO_ROOT, '.wine');
      if (home !== 'an empty HOME') {
        if (!existsSync(join(prefix, 'drive_c'))) this.skip();
      }
      const dir = mkdtempSync(join(tmpdir(), 'cdbh-dbgeng-emu-home-'));
      scratch.push(dir);
      mkdirSync(join(dir, 'home'));
      if (home !== 'an empty HOME') symlinkSync(prefix, join(dir, 'home', '.wine'));
      const saved = { home: process.env['HOME'], prefix: process.env['WINEPREFIX'] };
      process.env['HOME'] = join(dir, 'home');
      delete process.env['WINEPREFIX'];
      try {
        await analyzeAndCheck();
      } finally {
        restore('HOME', saved.home);
        restore('WINEPREFIX', saved.prefix);
      }
    });
  }

  function restore(name: string, value: string | undefined) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }

  async function analyzeAndCheck() {
    const input = mkdtempSync(join(tmpdir(), 'cdbh-dbgeng-emu-in-'));
    const out = mkdtempSync(join(tmpdir(), 'cdbh-dbgeng-emu-out-'));
    scratch.push(input, out);
    copyFileSync(join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp'), join(input, 'av.dmp'));
    writeFileSync(
      join(input, 'av.dmp.scenario'),
      join(REPO_ROOT, 'test', 'emulator', 'scenarios', 'dbgeng-analyze-av.json'),
    );
    await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'cdb',
      timeoutMs: 20_000,
      debuggerPath: 'cdb.exe',
      debuggerCommandPrefix: EMULATOR,
      validateRecords: true,
    });
    const row: unknown = JSON.parse(
      readFileSync(join(out, 'records.ndjson'), 'utf8').split('\n')[0] ?? '',
    );
    const record = row as Row;
    expect(record.ok, JSON.stringify(record.error)).to.equal(true);
    expect(validate('analyzeRecord', row).errors).to.deep.equal([]);
    expect(record.exception).to.include({ code: '0xc0000005', accessType: 'write' });
    // "(first/second chance not available)": no chance, as the real engine's record has it.
    expect(record.exception?.chance ?? null).to.equal(null);
    expect(record.frames[0]).to.include({ module: 'av', offset: '0x154a' });
    expect(record.notAvailable).to.include.members(['analyze', 'frames.symbols']);
    expect(record.analyze).to.equal(undefined);
  }
});
