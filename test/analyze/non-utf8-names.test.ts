// Dump files whose names are not valid UTF-8 (Linux names are bytes: `bad\xff\xfe.dmp` is a file
// like any other). Read as text the name opens nothing (ENOENT); read as bytes it is analysed,
// recorded with its exact bytes (`fileBytes`), kept apart from another name that reads the same,
// and recognised by --resume. A name typed on the command line arrives with U+FFFD and is found
// again in its folder; `inspect` on it works from the real command line.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { BYTE_NAME_LINKS } from '../../src/workflows/analyze/debugger-path.js';
import { validate } from '../../src/report/schemas.js';
import { REPO_ROOT } from '../helpers/wine.js';
import { dumpOf, readNdjson, tempDir } from './fixtures.js';

const linux = process.platform === 'linux';

/** `dir/` + the raw name bytes, as a Buffer path (what fs takes for such a name). */
function bytesPath(dir: string, name: string): Buffer {
  return Buffer.concat([Buffer.from(`${dir}/`), Buffer.from(name, 'latin1')]);
}

describe('analyze: file names that are not valid UTF-8', function () {
  this.timeout(60_000);

  before(function () {
    // Other systems (macOS APFS, Windows) refuse or normalise such names.
    if (!linux) this.skip();
  });

  it('a folder scan analyses them, keeps their bytes, tells two alike names apart, and --resume knows them', async () => {
    const av = await dumpOf('av-write');
    const dir = tempDir('bytes');
    const input = join(dir, 'in');
    mkdirSync(input);
    const bad = bytesPath(input, 'bad\xff\xfe.dmp');
    // Two names that differ only in their invalid bytes: both read "twin\uFFFD.dmp".
    const twinA = bytesPath(input, 'twin\xff.dmp');
    const twinB = bytesPath(input, 'twin\xfe.dmp');
    for (const path of [bad, twinA, twinB]) copyFileSync(av, path);
    copyFileSync(av, join(input, 'good.dmp'));

    const out = join(dir, 'out');
    const first = await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin' });
    expect(first.summary.dumps).to.equal(4);
    expect(first.summary.ok).to.equal(4);
    const records = readNdjson(join(out, 'records.ndjson'));
    const byBytes = new Map(records.map((r) => [r.fileBytes, r]));
    for (const path of [bad, twinA, twinB]) {
      const record = byBytes.get(path.toString('base64'));
      expect(record, path.toString('latin1')).to.not.equal(undefined);
      expect(record?.ok).to.equal(true);
      expect(record?.file).to.equal(path.toString('utf8'));
      expect(record?.file).to.include('\uFFFD');
      expect(validate('analyzeRecord', record).ok).to.equal(true);
    }
    const good = records.find((r) => r.file === join(input, 'good.dmp'));
    expect(good?.ok).to.equal(true);
    expect(good).to.not.have.property('fileBytes');

    const again = await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'builtin',
      resume: true,
    });
    expect(again.analyzed).to.equal(0);
    expect(again.skipped.resumed).to.equal(4);
    expect(readNdjson(join(out, 'records.ndjson'))).to.have.length(4);
  });

  it('a name given with U+FFFD (what argv delivers) is found again in its folder', async () => {
    const dir = tempDir('argv');
    copyFileSync(await dumpOf('av-write'), bytesPath(dir, 'bad\xff\xfe.dmp'));
    const out = join(dir, 'out');
    const result = await analyzeDumps({
      inputs: [join(dir, 'bad\uFFFD\uFFFD.dmp')],
      outDir: out,
      engine: 'builtin',
    });
    expect(result.summary.ok).to.equal(1);
    const [record] = readNdjson(join(out, 'records.ndjson'));
    expect(record?.fileBytes).to.equal(bytesPath(dir, 'bad\xff\xfe.dmp').toString('base64'));
  });

  it('inspect on such a name typed on the real command line reads it', async () => {
    const dir = tempDir('inspect');
    copyFileSync(await dumpOf('av-write'), bytesPath(dir, 'bad\xff\xfe.dmp'));
    // bash passes the raw bytes in argv ($'…'), as a user's shell does; Node decodes them.
    const run = spawnSync(
      'bash',
      [
        '-c',
        `exec "$0" --import tsx "$1" inspect --json --no-stacks "$2"$'/bad\\xff\\xfe.dmp'`,
        process.execPath,
        join(REPO_ROOT, 'test', 'analyze', 'run-cli.ts'),
        dir,
      ],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status, run.stderr).to.equal(0);
    const json = JSON.parse(run.stdout) as {
      dumps: { ok: boolean; file: string; fileBytes?: string }[];
    };
    expect(json.dumps[0]?.ok).to.equal(true);
    expect(json.dumps[0]?.fileBytes).to.equal(bytesPath(dir, 'bad\xff\xfe.dmp').toString('base64'));
  });

  it('a debugger engine is handed such a dump through a link with a plain name, removed after', async () => {
    const dir = tempDir('cdb-bytes');
    const input = join(dir, 'in');
    mkdirSync(input);
    const bad = bytesPath(input, 'bad\xff\xfe.dmp');
    copyFileSync(await dumpOf('av-write'), bad);
    const out = join(dir, 'out');
    const result = await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'cdb',
      timeoutMs: 8_000,
      debuggerPath: 'cdb.exe',
      // The emulator replies only when the dump it is given exists (as cdb does).
      debuggerCommandPrefix: {
        file: process.execPath,
        args: [
          '--import',
          'tsx',
          join(REPO_ROOT, 'test', 'analyze', 'emulator-dump-exists.ts'),
          join(REPO_ROOT, 'test', 'emulator', 'scenarios', 'analyze-av.json'),
        ],
      },
    });
    const [record] = readNdjson(join(out, 'records.ndjson'));
    expect(record?.ok, JSON.stringify(record?.error)).to.equal(true);
    expect(record?.engine).to.equal('cdb');
    expect(record?.fileBytes).to.equal(bad.toString('base64'));
    expect(result.summary.ok).to.equal(1);
    expect(existsSync(join(out, BYTE_NAME_LINKS))).to.equal(false);
  });
});
