// Finding cdb.exe (injected platform, environment and file check) and building symbol paths.
import { expect } from 'chai';
import { DebuggerNotFoundError, UnsafeArgumentError } from '../../src/errors.js';
import { locateCdb } from '../../src/engine/dialects/cdb/locate.js';
import { buildSymbolPath } from '../../src/engine/dialects/cdb/symbol-path.js';

const WIN_ENV = {
  'ProgramFiles(x86)': 'C:\\Program Files (x86)',
  ProgramFiles: 'C:\\Program Files',
  LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local',
};

describe('locateCdb', () => {
  it('prefers CDB_PATH when it exists', () => {
    const path = locateCdb(
      { ...WIN_ENV, CDB_PATH: 'D:\\tools\\cdb.exe' },
      'win32',
      (p) => p === 'D:\\tools\\cdb.exe',
    );
    expect(path).to.equal('D:\\tools\\cdb.exe');
  });

  it('finds the Windows Kits x64 debugger before the x86 one', () => {
    const kits = 'C:\\Program Files (x86)\\Windows Kits\\10\\Debuggers';
    const path = locateCdb(
      WIN_ENV,
      'win32',
      (p) => p === `${kits}\\x64\\cdb.exe` || p === `${kits}\\x86\\cdb.exe`,
    );
    expect(path).to.equal(`${kits}\\x64\\cdb.exe`);
  });

  it('falls back to the WinDbg Store alias', () => {
    const alias = 'C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps\\cdbX64.exe';
    expect(locateCdb(WIN_ENV, 'win32', (p) => p === alias)).to.equal(alias);
  });

  it('says how to install cdb and names every place it looked', () => {
    try {
      locateCdb({ ...WIN_ENV, CDB_PATH: 'E:\\nope\\cdb.exe' }, 'win32', () => false);
      expect.fail('should throw');
    } catch (error) {
      expect(error).to.be.instanceOf(DebuggerNotFoundError);
      const message = (error as Error).message;
      expect(message).to.include('Debugging Tools for Windows');
      expect(message).to.include('Microsoft Store');
      expect(message).to.include('CDB_PATH');
      expect(message).to.include('E:\\nope\\cdb.exe');
      expect(message).to.include(
        'C:\\Program Files (x86)\\Windows Kits\\10\\Debuggers\\x64\\cdb.exe',
      );
      expect(message).to.include('C:\\Program Files\\Windows Kits\\10\\Debuggers\\x86\\cdb.exe');
      expect(message).to.include('WindowsApps\\cdbX64.exe');
    }
  });

  it('on Linux only CDB_PATH can point at a cdb (e.g. an emulator)', () => {
    expect(locateCdb({ CDB_PATH: '/opt/cdb' }, 'linux', (p) => p === '/opt/cdb')).to.equal(
      '/opt/cdb',
    );
    expect(() => locateCdb({}, 'linux', () => true)).to.throw(DebuggerNotFoundError);
  });
});

describe('buildSymbolPath', () => {
  it('joins local directories, a cache and servers with ;', () => {
    expect(
      buildSymbolPath({
        local: ['C:\\sym'],
        cacheDir: 'C:\\cache',
        servers: ['https://msdl.microsoft.com/download/symbols'],
      }),
    ).to.equal('C:\\sym;cache*C:\\cache;srv*https://msdl.microsoft.com/download/symbols');
  });

  it('refuses elements with ;, *, quotes or newlines, and an empty path', () => {
    for (const bad of [
      { local: ['C:\\a;b'] },
      { cacheDir: 'C:\\c*d' },
      { servers: ['http://x"y'] },
      { local: ['C:\\a\nb'] },
      { local: [''] },
      {},
    ]) {
      expect(() => buildSymbolPath(bad), JSON.stringify(bad)).to.throw(UnsafeArgumentError);
    }
  });
});
