// gflags output lines are the published ones: Microsoft's GFlags examples
// ("Current Registry Settings for MyApp.exe executable are: 00001000" / "ust - Create user mode
// stack trace database", "… notepad.exe executable are: 00000002" / "sls - Show Loader Snaps"),
// a user's `gflags.exe -i heapmfc.exe +ust` session, and ReactOS gflags' ShowStatus() for the
// "No Registry Settings" form. gflags.exe itself cannot run here (Linux).
import { expect } from 'chai';
import { runGflagsCli } from '../../src/cli/commands/gflags.js';
import { parseGflagsImageOutput } from '../../src/parsers/gflags-output.js';
import { imageFileName } from '../../src/workflows/gflags/gflags.js';
import { locateWindowsTool } from '../../src/workflows/windows-tools.js';

describe('gflags and the Windows-only tools', () => {
  it('sees +ust in gflags /i output', () => {
    const on = parseGflagsImageOutput(
      'Current Registry Settings for heapmfc.exe executable are: 00001000\n    ust - Create user mode stack trace database\n',
    );
    expect(on).to.deep.equal({
      image: 'heapmfc.exe',
      flags: 0x1000,
      abbreviations: ['ust'],
      ust: true,
      other: [],
    });
  });

  it('sees other flags without ust, and no settings at all', () => {
    const sls = parseGflagsImageOutput(
      'Current Registry Settings for notepad.exe executable are: 00000002\r\n    sls - Show Loader Snaps\r\n',
    );
    expect(sls).to.include({ image: 'notepad.exe', flags: 2, ust: false });
    expect(sls.abbreviations).to.deep.equal(['sls']);
    const none = parseGflagsImageOutput('No Registry Settings for notepad.exe executable\n');
    expect(none).to.include({ image: 'notepad.exe', flags: 0, ust: false });
    const failed = parseGflagsImageOutput(
      "Failed to set the trace database size for `MyApp.exe'\n",
    );
    expect(failed.flags).to.equal(null);
    expect(failed.other).to.have.length(1);
  });

  it('keys image options by file name', () => {
    expect(imageFileName('C:\\Apps\\w3wp.exe')).to.equal('w3wp.exe');
    expect(imageFileName('w3wp')).to.equal('w3wp.exe');
    expect(() => imageFileName('a|b')).to.throw(/not an image file name/);
  });

  it('finds umdh.exe and gflags.exe next to cdb.exe on Windows, and says Windows-only elsewhere', () => {
    const env = { 'ProgramFiles(x86)': 'C:\\Program Files (x86)' };
    const umdh = locateWindowsTool('umdh', {
      env,
      platform: 'win32',
      exists: (p) => p.endsWith('\\x64\\umdh.exe'),
    });
    expect(umdh).to.equal('C:\\Program Files (x86)\\Windows Kits\\10\\Debuggers\\x64\\umdh.exe');
    expect(() => locateWindowsTool('gflags', { env: {}, platform: 'linux' })).to.throw(
      /exists only on Windows/,
    );
  });

  it('exits 3 with a message from `cdb-harness gflags` on Linux, before any +ust warning', async function () {
    if (process.platform === 'win32') this.skip();
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const capture = (chunk: string | Uint8Array): boolean => {
      written.push(String(chunk));
      return true;
    };
    process.stderr.write = capture;
    try {
      expect(await runGflagsCli({ enableUst: 'leak.exe' })).to.equal(3);
    } finally {
      process.stderr.write = write;
    }
    expect(written.join('')).to.match(/exists only on Windows/);
    expect(written.join('')).to.not.match(/warning:/);
  });
});
