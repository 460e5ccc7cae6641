// A missing winedbg is "debugger not found" (exit 3, the install hint) before anything starts:
// it was "spawn winedbg ENOENT" (exit 5) for dump, and good dumps quarantined by analyze.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { winedbgFile } from '../../../../src/engine/dialects/winedbg/binary.js';
import { DebuggerNotFoundError } from '../../../../src/errors.js';
import { runCli } from '../../../helpers/cli.js';
import { makeTempDir } from '../../../helpers/temp-dir.js';

describe('winedbg missing', function () {
  this.timeout(60_000);
  const noWine = () => ({ ...process.env, PATH: makeTempDir('empty-path') });

  it('winedbgFile: --debugger as given, PATH, else DebuggerNotFoundError with the install hint', () => {
    expect(winedbgFile({ PATH: '' }, '/opt/wine/winedbg')).to.equal('/opt/wine/winedbg');
    expect(() => winedbgFile({ PATH: makeTempDir('empty-path') }))
      .to.throw(DebuggerNotFoundError)
      .with.property('message')
      .that.matches(/apt-get install wine/);
  });

  it('dump --engine winedbg exits 3 with the hint', async () => {
    const run = await runCli(
      ['dump', '-ma', '123', makeTempDir('dump-out'), '--engine', 'winedbg'],
      {
        env: noWine(),
      },
    );
    expect(run.code, run.stderr).to.equal(3);
    expect(run.stderr).to.match(/winedbg was not found on PATH/);
  });

  it('analyze --engine winedbg exits 3 and quarantines nothing', async () => {
    const out = makeTempDir('analyze-out');
    const run = await runCli(
      ['analyze', 'examples/dumps/av-write-a.dmp', '--engine', 'winedbg', '--out', out],
      { env: noWine() },
    );
    expect(run.code, run.stderr).to.equal(3);
    const records = join(out, 'records.ndjson');
    expect(existsSync(records) ? readFileSync(records, 'utf8') : '').to.not.match(/quarantined/);
  });
});
