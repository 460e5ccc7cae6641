// Facts the README and docs/cli.md both state must be stated once and the same way: the debugger
// lookup order is one marked paragraph, identical in both, and in the order the code searches.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cdbCandidates } from '../../src/engine/dialects/cdb/locate.js';
import { REPO_ROOT } from '../helpers/wine.js';

function lookupOrder(file: string): string {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const body =
    /<!-- debugger-lookup-order[^>]*-->\n([\s\S]*?)<!-- \/debugger-lookup-order -->/.exec(text);
  expect(body, `${file} has the marked debugger lookup order`).to.not.equal(null);
  return body![1]!;
}

describe('README and docs/cli.md', () => {
  it('state the debugger lookup order once each, with the same words', () => {
    const readme = lookupOrder('README.md');
    expect(lookupOrder('docs/cli.md')).to.equal(readme);
    const mentions = (file: string) =>
      readFileSync(join(REPO_ROOT, file), 'utf8').split('CDB_PATH').length - 1;
    expect(mentions('README.md'), 'README mentions CDB_PATH only in that paragraph').to.equal(1);
  });

  it('name the places in the order locate.ts searches them', () => {
    const text = lookupOrder('README.md').replace(/\s+/g, ' ');
    const env = {
      CDB_PATH: 'CDB_PATH',
      'ProgramFiles(x86)': '%ProgramFiles(x86)%',
      ProgramFiles: '%ProgramFiles%',
      LOCALAPPDATA: '%LOCALAPPDATA%',
    };
    // x64 before x86 on a 64-bit node, as locate.ts orders them.
    const expected = cdbCandidates(env, 'win32').map((path) =>
      path
        .replace(/\\cdb\.exe$/, '')
        .replace(
          /^(%ProgramFiles(?:\(x86\))?%)\\Windows Kits\\10\\(Debuggers\\x(?:64|86))$/,
          '$2|$1',
        ),
    );
    const where = (needle: string) => {
      const at = text.indexOf(needle);
      expect(at, needle).to.be.greaterThan(-1);
      return at;
    };
    const places = [
      where('--debugger PATH'),
      where('`CDB_PATH`'),
      where(`\`${expected[1]!.split('|')[0]!}\``),
      where(`\`${expected[2]!.split('|')[0]!}\``),
      where('`%ProgramFiles(x86)%\\Windows Kits\\10`'),
      where('`%ProgramFiles%\\Windows Kits\\10`'),
      where('WindowsApps\\cdbX64.exe'),
      where('`winedbg` on `PATH`'),
    ];
    expect(places).to.deep.equal([...places].sort((a, b) => a - b));
    expect(expected[0]).to.equal('CDB_PATH');
    expect(expected.at(-1)).to.match(/WindowsApps/);
  });
});
