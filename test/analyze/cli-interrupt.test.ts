// Ctrl-C during `cdb-harness analyze` with a real debugger: the CLI's SIGINT handler aborts the
// run, winedbg sessions in flight are ended, every record written is complete, the summary says
// "interrupted", the last line says how --resume continues, and the exit code is 130.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT, wineEnv, wineRigReady } from '../helpers/wine.js';
import { dumpOf, folderWith, readNdjson, readSummary, tempDir } from './fixtures.js';

describe('cdb-harness analyze interrupted by Ctrl-C', function () {
  this.timeout(90_000);

  it('keeps complete records, writes an interrupted summary and exits 130', async function () {
    if (!wineRigReady()) this.skip();
    const files: Record<string, string> = {};
    for (let i = 0; i < 6; i++) files[`av-${i}.dmp`] = await dumpOf('av-write', 1 + (i % 2));
    const input = await folderWith(files);
    const out = tempDir('sigint');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(REPO_ROOT, 'test', 'analyze', 'run-cli.ts'),
        'analyze',
        input,
        '--engine',
        'winedbg',
        '--jobs',
        '1',
        '--out',
        out,
      ],
      { env: wineEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let signalled = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // The first finished dump prints a progress line: interrupt while the next one runs.
      if (!signalled && /ok 1 /.test(stderr)) {
        signalled = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(signalled, stderr).to.equal(true);
    expect(code, stderr).to.equal(130);
    const records = readNdjson(join(out, 'records.ndjson'));
    expect(records.length).to.be.within(1, 5);
    for (const r of records) expect(r.ok, JSON.stringify(r.error)).to.equal(true);
    expect(readSummary(out)).to.include({ interrupted: true, dumps: records.length });
    // It says how to continue: the same inputs and --out, with --resume.
    expect(stderr).to.include(
      `interrupted: to continue, run: cdb-harness analyze ${input} --out ${out} --resume`,
    );
  });
});
