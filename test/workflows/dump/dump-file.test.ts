import { expect } from 'chai';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkDiskSpace } from '../../../src/workflows/dump/dump.js';
import {
  ensureOutDir,
  reserveDumpFile,
  setAsidePartial,
} from '../../../src/workflows/dump/dump-file.js';
import {
  exceptionDumpName,
  numberedName,
  safeFileComponent,
  snapshotDumpName,
} from '../../../src/workflows/dump/dump-name.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const at = new Date(2025, 10, 21, 12, 48, 59); // 21 Nov 2025 12:48:59 local

describe('dump file names', () => {
  it('names snapshot dumps <process>.exe_<pid>_<yyMMdd>_<HHmmss>.dmp', () => {
    expect(snapshotDumpName('w3wp', 1234, at)).to.equal('w3wp.exe_1234_251121_124859.dmp');
    expect(snapshotDumpName('W3WP.EXE', 1234, at)).to.equal('W3WP.EXE_1234_251121_124859.dmp');
  });

  it('names exception dumps with code, short CLR type and time', () => {
    expect(
      exceptionDumpName({ process: 'raise.exe', pid: 1234, code: '0xe0434352', time: at }),
    ).to.equal('raise.exe_1234_e0434352_251121_124859.dmp');
    expect(
      exceptionDumpName({
        process: 'app.exe',
        pid: 7,
        code: '0xe0434352',
        clrType: 'System.IO.IOException',
        time: at,
      }),
    ).to.equal('app.exe_7_e0434352-IOException_251121_124859.dmp');
  });

  it('keeps only characters every debugger command line and filesystem accept', () => {
    expect(safeFileComponent('my app:"x";\\y.exe')).to.equal('my_app_x_y.exe'.replace(' ', '_'));
    expect(safeFileComponent('...')).to.equal('process');
    expect(numberedName('a.dmp', 1)).to.equal('a.dmp');
    expect(numberedName('a.dmp', 3)).to.equal('a_3.dmp');
  });
});

describe('dump files on disk', () => {
  const dir = makeTempDir('dumpfile');

  it('creates the out dir owner-only and reserves files with mode 0600', async () => {
    const out = join(dir, 'new', 'nested');
    await ensureOutDir(out);
    expect(statSync(out).mode & 0o777).to.equal(0o700);
    const path = await reserveDumpFile(out, 'x.dmp');
    expect(statSync(path).mode & 0o777).to.equal(0o600);
    expect(statSync(path).size).to.equal(0);
  });

  it('never overwrites without --overwrite, numbers names for watch, and truncates with it', async () => {
    const existing = join(dir, 'keep.dmp');
    writeFileSync(existing, 'precious', { mode: 0o644 });
    let message = '';
    try {
      await reserveDumpFile(dir, 'keep.dmp');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).to.contain('already exists').and.to.contain('--overwrite');
    expect(readFileSync(existing, 'utf8')).to.equal('precious');
    expect(await reserveDumpFile(dir, 'keep.dmp', { numbered: true })).to.equal(
      join(dir, 'keep_2.dmp'),
    );
    const replaced = await reserveDumpFile(dir, 'keep.dmp', { overwrite: true });
    expect(statSync(replaced).size).to.equal(0);
    expect(statSync(replaced).mode & 0o777).to.equal(0o600);
  });

  it('sets a partial write aside as .partial and removes an empty one', async () => {
    const partial = join(dir, 'half.dmp');
    writeFileSync(partial, 'MDMP');
    expect(await setAsidePartial(partial)).to.equal(`${partial}.partial`);
    expect(existsSync(partial)).to.equal(false);
    const empty = join(dir, 'empty.dmp');
    writeFileSync(empty, '');
    expect(await setAsidePartial(empty)).to.equal(null);
    expect(existsSync(empty)).to.equal(false);
  });

  it('refuses a dump the free space cannot hold', () => {
    expect(checkDiskSpace(100 * 1048576, 200 * 1048576)).to.match(
      /not enough disk space: .*210\.0 MB.*100\.0 MB/,
    );
    expect(checkDiskSpace(300 * 1048576, 200 * 1048576)).to.equal(null);
    expect(checkDiskSpace(null, 1)).to.equal(null);
  });
});
