import { expect } from 'chai';
import { join, resolve } from 'node:path';
import { debuggerFile } from '../../src/engine/launch.js';

describe('debuggerFile (--debugger as the user meant it)', () => {
  it('resolves a relative path with a folder against the caller’s folder', () => {
    expect(debuggerFile('build/dbgeng/cdb', '/work/x')).to.equal(
      resolve('/work/x', 'build/dbgeng/cdb'),
    );
    expect(debuggerFile('./cdb', '/work/x')).to.equal(join('/work/x', 'cdb'));
  });

  it('leaves an absolute path and a bare name (looked up on PATH) alone', () => {
    expect(debuggerFile('/usr/bin/winedbg', '/work/x')).to.equal('/usr/bin/winedbg');
    expect(debuggerFile('cdb.exe', '/work/x')).to.equal('cdb.exe');
  });
});
