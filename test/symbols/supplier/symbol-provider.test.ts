// The stack walker's hooks served from symbol files found on a symbol path: names with file:line
// (SymbolProvider) and, from a Breakpad file, STACK CFI rules and STACK WIN frame data
// (UnwindProvider), in the walker's published shapes (src/stackwalk/types.ts).
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModuleRef } from '../../../src/stackwalk/types.js';
import { symbolFileProvider } from '../../../src/symbols/supplier/symbol-provider.js';
import { Symbolizer } from '../../../src/symbols/supplier/symbolizer.js';
import { debugIdOf, writePdb, type PdbSpec } from '../../helpers/pdb-builder.js';

const ID = '0123456789ABCDEF0123456789ABCDEF2';
const SYM = `MODULE windows x86 ${ID} demo.pdb
FILE 0 c:\\src\\demo.c
FUNC 1000 40 8 outer_function
1000 40 10 0
STACK WIN 4 1000 40 5 3 8 4 10 0 1 $T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + =
STACK WIN 0 1100 20 2 1 0 0 4 0 0 1
STACK CFI INIT 1000 40 .cfa: $esp 4 + .ra: .cfa 4 - ^
STACK CFI 1001 .cfa: $esp 8 + $ebp: .cfa 8 - ^
`;

describe('symbols: walker hooks (SymbolProvider, UnwindProvider)', () => {
  let dir: string;
  let symbolizer: Symbolizer;
  const module: ModuleRef = {
    name: 'demo.dll',
    path: 'C:\\app\\demo.dll',
    base: 0x10000000n,
    size: 0x8000,
    timestamp: 0x5f3a1b2c,
    codeView: { pdbName: 'demo.pdb', debugId: ID },
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cdbh-provider-'));
    writeFileSync(join(dir, 'demo.sym'), SYM);
    symbolizer = new Symbolizer({ symbolPath: dir, defaultCache: join(dir, 'cache') });
  });
  afterEach(async () => {
    await symbolizer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names an address with file and line, and says where the name came from', async () => {
    const provider = symbolFileProvider(symbolizer);
    expect(await provider.lookup(module, 0x1010)).to.deep.equal({
      function: 'outer_function',
      offset: 0x10,
      file: 'c:\\src\\demo.c',
      line: 10,
      source: 'breakpad',
    });
    expect(
      await provider.lookup({ ...module, codeView: { pdbName: 'other.pdb', debugId: ID } }, 0x1010),
    ).to.equal(undefined);
  });

  it('hands STACK CFI rules and STACK WIN frame data to the walker', async () => {
    const provider = symbolFileProvider(symbolizer);
    expect(await provider.cfi?.(module, 0x1000)).to.deep.equal({
      cfa: '$esp 4 +',
      ra: '.cfa 4 - ^',
      registers: {},
    });
    expect(await provider.cfi?.(module, 0x1002)).to.deep.equal({
      cfa: '$esp 8 +',
      ra: '.cfa 4 - ^',
      registers: { $ebp: '.cfa 8 - ^' },
    });
    expect(await provider.x86Frame?.(module, 0x1020)).to.deep.include({
      type: 4,
      rva: 0x1000,
      codeSize: 0x40,
      parameterSize: 8,
      programString: '$T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + =',
    });
    expect(await provider.x86Frame?.(module, 0x1105)).to.deep.include({
      type: 0,
      allocatesBasePointer: true,
      localSize: 4,
    });
    expect(await provider.cfi?.(module, 0x2000)).to.equal(undefined);
  });

  it('once a module is read, answers the next lookups without a promise, the same as the first', async () => {
    const provider = symbolFileProvider(symbolizer);
    const first = {
      name: await provider.lookup(module, 0x1010),
      cfi: await provider.cfi?.(module, 0x1002),
      win: await provider.x86Frame?.(module, 0x1020),
    };
    const again = {
      name: provider.lookup(module, 0x1010),
      cfi: provider.cfi?.(module, 0x1002),
      win: provider.x86Frame?.(module, 0x1020),
    };
    for (const answer of Object.values(again)) expect(answer).to.not.be.instanceOf(Promise);
    expect(again).to.deep.equal(first);
    expect(first.name).to.include({ function: 'outer_function' });
    // A module without symbols: said once, then without waiting too.
    const other = { ...module, codeView: { pdbName: 'other.pdb', debugId: ID } };
    expect(await provider.lookup(other, 0x1010)).to.equal(undefined);
    expect(provider.lookup(other, 0x1010)).to.equal(undefined);
    expect(provider.cfi?.(other, 0x1002)).to.equal(undefined);
    // A dump's second provider sees the batch's settled answers at once.
    expect(symbolFileProvider(symbolizer).lookup(module, 0x1010)).to.deep.equal(first.name);
  });

  it("says in the dump's failures when a PDB was read only in part (no name, or no line)", async () => {
    const pdb: PdbSpec = {
      guid: 'ABCDEF0123456789ABCDEF0123456789',
      age: 2,
      modules: [
        {
          name: 'main',
          procs: [
            { name: 'level1', rva: 0x1000, size: 0x30, lines: [[0, 10]] },
            { name: 'level2', rva: 0x1030, size: 0x40, lines: [[0, 20]] },
            { name: 'level3', rva: 0x1070, size: 0x10 },
          ],
        },
      ],
      publics: [{ name: 'level1', rva: 0x1000 }],
      // level3's record (after level1 48 + S_END 4 + level2 48 + S_END 4) of length 0; level2's
      // line block (after checksums 16 and level1's lines 40) claims more than it holds.
      edit: (streams, layout) => {
        const stream = streams[layout.modules[0] ?? -1];
        stream?.writeUInt16LE(0, 4 + 48 + 4 + 48 + 4);
        stream?.writeUInt32LE(0xffff, (layout.c13[0]?.at ?? 0) + 16 + 40 + 8 + 12 + 8);
      },
    };
    writePdb(join(dir, 'demo.pdb'), pdb);
    const pdbModule = { ...module, codeView: { pdbName: 'demo.pdb', debugId: debugIdOf(pdb) } };
    const partLines = symbolFileProvider(symbolizer);
    expect(await partLines.lookup(pdbModule, 0x1035)).to.deep.include({ function: 'level2' });
    expect([...partLines.failures.values()]).to.have.length(1);
    expect([...partLines.failures.values()][0]).to.match(
      /^symbols read in part: main\.obj: no line: a line block/,
    );
    const noName = symbolFileProvider(symbolizer);
    expect(await noName.lookup(pdbModule, 0x1075)).to.equal(undefined);
    expect([...noName.failures.values()][0]).to.match(
      /^lookup failed: \S*demo\.pdb: no name for \+0x1075: the symbols of main\.obj were read only in part \(a symbol record of length 0/,
    );
  });
});
