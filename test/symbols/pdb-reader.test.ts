// The PDB reader against a real PDB written by lld for a clang-built program, checked against an
// independent reader (LLVM's llvm-pdbutil) for every procedure and every line record, and against
// the program's source for the crash line.
import { expect } from 'chai';
import { PositionedFileReader } from '../../src/minidump/file-reader.js';
import { readPeHeaders } from '../../src/stackwalk/pe-image.js';
import { PdbFile, readImageIdentity } from '../../src/symbols/index.js';
import { hasPdbUtil, pdbUtilFacts } from '../helpers/pdbutil.js';
import { markerLine, pdbPathOf, pdbTargetReady } from '../helpers/pdb-targets.js';
import { targetPath } from '../helpers/wine.js';

describe('symbols: PDB reader (real lld PDB)', function () {
  before(function () {
    if (!pdbTargetReady('symcrash')) this.skip(); // scripts/build-pdb-targets.sh not run
  });

  let reader: PositionedFileReader;
  let pdb: PdbFile;
  beforeEach(async () => {
    reader = await PositionedFileReader.open(pdbPathOf('symcrash'));
    pdb = await PdbFile.open(reader, 'symcrash.pdb');
  });
  afterEach(() => reader.close());

  it('matches the GUID and age in the image debug directory', async () => {
    const image = await PositionedFileReader.open(targetPath('symcrash'));
    try {
      const identity = await readImageIdentity(image, 'symcrash.exe');
      expect(identity.codeView?.pdbName).to.equal('symcrash.pdb');
      expect(identity.codeView?.debugId).to.equal(pdb.identity.debugId);
      expect(pdb.matches(identity.codeView?.debugId ?? '')).to.equal(true);
      // One digit of the GUID off, or another age: not this build.
      const id = pdb.identity.debugId;
      expect(pdb.matches(`${id.slice(0, 5)}${id[5] === '0' ? '1' : '0'}${id.slice(6)}`)).to.equal(
        false,
      );
      expect(pdb.matches(`${id.slice(0, 32)}2`)).to.equal(false);
    } finally {
      await image.close();
    }
  });

  it('names every procedure and line the way llvm-pdbutil reads them', async function () {
    if (!hasPdbUtil()) this.skip();
    const facts = pdbUtilFacts(pdbPathOf('symcrash'));
    expect(pdb.identity.debugId).to.equal(facts.debugId);
    expect(facts.procs.map((p) => p.name)).to.include.members(['main', 'run_job', 'store_value']);
    for (const proc of facts.procs) {
      for (const rva of [proc.rva, proc.rva + proc.size - 1]) {
        const hit = await pdb.lookup(rva);
        expect(hit?.function, `rva 0x${rva.toString(16)}`).to.equal(proc.name);
        expect(hit?.functionOffset).to.equal(rva - proc.rva);
        expect(hit?.kind).to.equal('function');
      }
    }
    for (const line of facts.lines) {
      const hit = await pdb.lookup(line.rva);
      expect(hit?.line, `rva 0x${line.rva.toString(16)}`).to.equal(line.line);
      expect(hit?.file).to.equal(line.file);
    }
  });

  it('puts the crash in store_value at the CRASH-LINE of symcrash-store.c', async function () {
    if (!hasPdbUtil()) this.skip();
    const store = pdbUtilFacts(pdbPathOf('symcrash')).procs.find((p) => p.name === 'store_value');
    const crashLine = markerLine('symcrash-store.c', 'CRASH-LINE');
    const lines = [];
    for (let rva = store?.rva ?? 0; rva < (store?.rva ?? 0) + (store?.size ?? 0); rva++) {
      lines.push((await pdb.lookup(rva))?.line);
    }
    expect(lines).to.include(crashLine);
    expect((await pdb.lookup(store?.rva ?? 0))?.file).to.match(/symcrash-store\.c$/);
  });

  it('falls back to public symbols outside any procedure, and says nothing below them all', async () => {
    // The mingw CRT is linked without debug info: its functions are publics only.
    const hits = [];
    for (let rva = 0x1000; rva < 0x8000; rva += 0x10) {
      const hit = await pdb.lookup(rva);
      if (hit?.kind === 'public') hits.push(hit);
    }
    expect(hits.length).to.be.greaterThan(0);
    expect(hits.every((h) => h.function.length > 0 && h.functionOffset >= 0)).to.equal(true);
    expect(await pdb.lookup(0)).to.equal(undefined);
  });

  it('names no address past the end of the code section (data is no function)', async () => {
    // The image's own section table (its PE headers), read independently of the PDB's copy.
    const exe = await PositionedFileReader.open(targetPath('symcrash'));
    try {
      const headers = await readPeHeaders({
        layout: 'file',
        origin: 'test',
        read: async (offset, length) => exe.read(offset, length),
      });
      const code = headers?.sections.find((s) => s.executable);
      const data = headers?.sections.filter((s) => !s.executable && s.virtualSize > 0x20) ?? [];
      expect(code, '.text').to.not.equal(undefined);
      expect(data.length).to.be.greaterThan(0);
      // The last bytes of .text still get the nearest public below them...
      const lastCode = (code?.rva ?? 0) + (code?.virtualSize ?? 0) - 1;
      expect(await pdb.lookup(lastCode)).to.not.equal(undefined);
      // ...but no address of a data section (.rdata strings, .data, .pdata) is named.
      for (const section of data) {
        for (const rva of [
          section.rva,
          section.rva + 0x10,
          section.rva + section.virtualSize - 1,
        ]) {
          expect(await pdb.lookup(rva), `${section.name}+${rva - section.rva}`).to.equal(undefined);
        }
      }
    } finally {
      await exe.close();
    }
  });

  it('reads only part of the file for a lookup', async () => {
    const fresh = await PositionedFileReader.open(pdbPathOf('symcrash'), { cacheBytes: 0 });
    try {
      const cold = await PdbFile.open(fresh, 'symcrash.pdb');
      await cold.lookup(0x1690);
      expect(fresh.bytesRead).to.be.lessThan(fresh.size / 2);
    } finally {
      await fresh.close();
    }
  });
});
