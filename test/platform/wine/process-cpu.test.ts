// Finding the Linux process that runs a Windows pid under Wine, on a made-up /proc.
import { expect } from 'chai';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  wineCpuSource,
  wineHostCandidates,
  wineImageName,
  winePrefixOfEnviron,
} from '../../../src/platform/wine/process-cpu.js';
import { TargetError } from '../../../src/errors.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

/** A /proc entry: cmdline and environ NUL-separated as the kernel gives them. */
function fakeProcess(root: string, pid: number, argv: string[], prefix: string | null): void {
  const dir = join(root, String(pid));
  mkdirSync(dir);
  writeFileSync(join(dir, 'cmdline'), `${argv.join('\0')}\0`);
  writeFileSync(
    join(dir, 'environ'),
    `HOME=/root\0${prefix === null ? '' : `WINEPREFIX=${prefix}\0`}`,
  );
  writeFileSync(
    join(dir, 'stat'),
    `${pid} (wine64-preloade) R 1 ${pid} 0 0 0 0 0 0 0 0 250 50 0 0`,
  );
  symlinkSync('/usr/lib/wine/wine64', join(dir, 'exe'));
}

describe('Wine host process of a Windows pid (/proc)', () => {
  it('reads the image from argv[1] while argv[0] is still the Wine loader', () => {
    // The command line of `wine64 ./prog.exe 3000` in its first seconds (seen on Wine 8.0).
    expect(wineImageName('/usr/lib/wine/wine64\0./cpuburn.exe\0/tmp/cue\0')).to.equal(
      'cpuburn.exe',
    );
    expect(wineImageName('wine\0C:\\x\\Prog.EXE\0')).to.equal('Prog.EXE');
    expect(wineImageName('/usr/lib/wine/wine64\0--version\0')).to.equal(null);
    expect(wineImageName('./cpuburn.exe\0/tmp/cue\0\0\0')).to.equal('cpuburn.exe');
  });

  it('takes the prefix from WINEPREFIX, ~/.wine when unset', () => {
    expect(winePrefixOfEnviron('A=1\0WINEPREFIX=/work/p/.wine/\0', '/root')).to.equal(
      '/work/p/.wine',
    );
    expect(winePrefixOfEnviron('A=1\0', '/home/u')).to.equal('/home/u/.wine');
  });

  it('counts only the processes of the prefix asked for', async () => {
    const root = makeTempDir('fake-proc');
    fakeProcess(root, 100, ['/usr/lib/wine/wine64', './cpuburn.exe', 'cue'], '/a/.wine');
    fakeProcess(root, 200, ['Z:\\b\\cpuburn.exe'], '/b/.wine');
    fakeProcess(root, 300, ['C:\\windows\\system32\\services.exe'], '/a/.wine');
    const all = await wineHostCandidates('cpuburn.exe', root);
    expect(all.map((c) => c.linuxPid).sort()).to.deep.equal([100, 200]);
    const mine = await wineHostCandidates('cpuburn.exe', root, '/a/.wine');
    expect(mine.map((c) => c.linuxPid)).to.deep.equal([100]);
    const source = await wineCpuSource(32, 'cpuburn.exe', {
      procRoot: root,
      env: { WINEPREFIX: '/a/.wine' },
    });
    // utime 250 + stime 50 ticks of 1/100 s.
    expect((await source.read())?.cpuMs).to.equal(3000);
  });

  it('names the prefix it looked in when no process of it runs the image', async () => {
    const root = makeTempDir('fake-proc');
    fakeProcess(root, 200, ['Z:\\b\\cpuburn.exe'], '/b/.wine');
    const error = await wineCpuSource(32, 'cpuburn.exe', {
      procRoot: root,
      env: { WINEPREFIX: '/a/.wine' },
    }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(TargetError);
    expect((error as Error).message).to.contain('prefix /a/.wine');
  });
});
