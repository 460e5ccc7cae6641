// Breakpad .sym files in the documented record format
// (https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/docs/symbol_files.md): a file the
// test writes for the real clang-built program (from llvm-pdbutil's reading of its PDB), a
// hand-written one with every record kind, and broken ones.
import { expect } from 'chai';
import { BreakpadSymbols, BufferSource, PdbFile } from '../../src/symbols/index.js';
import { PositionedFileReader } from '../../src/minidump/file-reader.js';
import { breakpadSymText, hasPdbUtil, pdbUtilFacts } from '../helpers/pdbutil.js';
import { pdbPathOf, pdbTargetReady } from '../helpers/pdb-targets.js';

const EVERY_KIND = `MODULE windows x86 0123456789ABCDEF0123456789ABCDEF2 demo.pdb
INFO CODE_ID 5F3A1B2C4000 demo.dll
FILE 0 c:\\src\\demo.c
FILE 1 c:\\src\\inline.h
INLINE_ORIGIN 0 helper_inlined
INLINE_ORIGIN 1 deeper_inlined
FUNC m 1000 40 8 outer_function
INLINE 0 12 0 0 1010 10
INLINE 1 30 1 1 1014 4
1000 10 10 0
1010 4 31 1
1014 4 40 1
1018 28 14 0
FUNC 1100 20 0 second
1100 20 50 0
PUBLIC m 1200 4 _public_only@4
PUBLIC 1300 0 another_public
STACK WIN 4 1000 40 5 3 8 4 10 0 1 $T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + =
STACK WIN 0 1100 20 2 1 0 0 4 0 0 1
STACK CFI INIT 1000 40 .cfa: $esp 4 + .ra: .cfa 4 - ^
STACK CFI 1001 .cfa: $esp 8 + $ebp: .cfa 8 - ^
STACK CFI 1003 .cfa: $ebp 8 +
`;

describe('symbols: Breakpad .sym reader', () => {
  it('reads MODULE, FUNC with lines and inlines, PUBLIC and STACK records', async () => {
    const sym = await BreakpadSymbols.parse(Buffer.from(EVERY_KIND), 'demo.sym');
    expect(sym.module).to.deep.equal({
      os: 'windows',
      arch: 'x86',
      debugId: '0123456789ABCDEF0123456789ABCDEF2',
      name: 'demo.pdb',
    });
    expect(sym.codeId).to.equal('5F3A1B2C4000');
    expect(sym.malformedLines).to.equal(0);
    expect(await sym.lookup(0x1004)).to.deep.equal({
      function: 'outer_function',
      functionOffset: 4,
      kind: 'function',
      file: 'c:\\src\\demo.c',
      line: 10,
    });
    const inlined = await sym.lookup(0x1015);
    expect(inlined?.line).to.equal(40);
    expect(inlined?.file).to.equal('c:\\src\\inline.h');
    expect(inlined?.inlines).to.deep.equal([
      { function: 'helper_inlined', callLine: 12, callFile: 'c:\\src\\demo.c' },
      { function: 'deeper_inlined', callLine: 30, callFile: 'c:\\src\\inline.h' },
    ]);
    expect((await sym.lookup(0x1011))?.inlines?.map((i) => i.function)).to.deep.equal([
      'helper_inlined',
    ]);
    expect(await sym.lookup(0x1205)).to.deep.equal({
      function: '_public_only@4',
      functionOffset: 5,
      kind: 'public',
    });
    expect(await sym.lookup(0x0fff)).to.equal(undefined);

    const win = await sym.stack.winAt(0x1020);
    expect(win?.type).to.equal(4);
    expect(win?.programString).to.equal('$T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + =');
    expect(win?.parameterSize).to.equal(8);
    expect(await sym.stack.winAt(0x1105)).to.include({
      type: 0,
      allocatesBasePointer: true,
      localSize: 4,
    });
    expect(await sym.stack.winAt(0x1140)).to.equal(undefined);
    expect((await sym.stack.cfiAt(0x1000))?.rules).to.deep.equal([
      '.cfa: $esp 4 + .ra: .cfa 4 - ^',
    ]);
    expect((await sym.stack.cfiAt(0x1002))?.rules).to.deep.equal([
      '.cfa: $esp 4 + .ra: .cfa 4 - ^',
      '.cfa: $esp 8 + $ebp: .cfa 8 - ^',
    ]);
    expect(await sym.stack.cfiAt(0x1040)).to.equal(undefined);
  });

  it('answers without a promise, once the records are read, exactly what the reads answered', async () => {
    const warm = await BreakpadSymbols.parse(Buffer.from(EVERY_KIND), 'demo.sym');
    // Nothing read yet: only the waiting lookups can tell.
    expect(warm.lookupNow(0x1015)).to.equal(null);
    expect(warm.lookupNow(0x1205)).to.equal(null);
    expect(warm.stack.cfiRulesAtNow(0x1002)).to.equal(null);
    expect(warm.stack.winAtNow(0x1020)).to.equal(null);
    // An address no record covers needs no read at all.
    expect(warm.lookupNow(0x0fff)).to.equal(undefined);
    expect(warm.stack.winAtNow(0x1140)).to.equal(undefined);
    for (let rva = 0x0ff0; rva < 0x1320; rva++) {
      // A file of its own per address: its answer comes from reading, not from memory.
      const fresh = await BreakpadSymbols.parse(Buffer.from(EVERY_KIND), 'demo.sym');
      const name = await fresh.lookup(rva);
      const cfi = await fresh.stack.cfiRulesAt(rva);
      const win = await fresh.stack.winAt(rva);
      await warm.lookup(rva);
      await warm.stack.cfiRulesAt(rva);
      await warm.stack.winAt(rva);
      const at = `rva 0x${rva.toString(16)}`;
      expect(warm.lookupNow(rva), at).to.deep.equal(name);
      expect(warm.stack.cfiRulesAtNow(rva), at).to.deep.equal(cfi);
      expect(warm.stack.winAtNow(rva), at).to.deep.equal(win);
    }
    // Inlined calls, a line's file and a public name all come back from memory.
    expect(warm.lookupNow(0x1015)?.inlines).to.have.length(2);
    expect(warm.lookupNow(0x1205)).to.deep.include({ function: '_public_only@4', kind: 'public' });
  });

  it('counts malformed lines and keeps the rest', async () => {
    const text = EVERY_KIND.replace('FUNC 1100 20 0 second', 'FUNC zz 20 0 second')
      .replace('PUBLIC 1300 0 another_public', 'PUBLIC nonsense')
      .concat('GARBAGE LINE\nSTACK WIN 4 1 2\n\u0000\u0001\n');
    const sym = await BreakpadSymbols.parse(Buffer.from(text), 'demo.sym');
    expect(sym.malformedLines).to.be.greaterThanOrEqual(5);
    expect((await sym.lookup(0x1004))?.function).to.equal('outer_function');
  });

  it('refuses a file without a MODULE line, or an empty one', async () => {
    const refusal = (bytes: Buffer) =>
      BreakpadSymbols.parse(bytes, 'x.sym').then(
        () => 'no error',
        (error: Error) => error.message,
      );
    expect(await refusal(Buffer.from('FUNC 1000 10 0 f\n'))).to.match(/no MODULE line/);
    expect(await refusal(Buffer.alloc(0))).to.match(/empty symbol file/);
    expect(await refusal(Buffer.alloc(4096, 0xff))).to.match(/no MODULE/);
  });

  it('survives absurd numbers and a truncated last line in bounded time', async () => {
    const lines = ['MODULE windows x86_64 00000000000000000000000000000000 0 a.pdb'];
    lines.push('FUNC ffffffffffffffffffff ffffffffffff 0 huge');
    for (let i = 0; i < 50_000; i++) lines.push(`${(0x1000 + i).toString(16)} 1 ${i} 0`);
    lines.push('FUNC 2000 10 0 cut_sh');
    const started = performance.now();
    const sym = await BreakpadSymbols.parse(Buffer.from(lines.join('\n')), 'a.sym');
    expect(performance.now() - started).to.be.lessThan(2000);
    expect((await sym.lookup(0x2004))?.function).to.equal('cut_sh');
  });

  it('a .sym written for the clang-built program names what its PDB names', async function () {
    if (!pdbTargetReady('symcrash') || !hasPdbUtil()) this.skip();
    const facts = pdbUtilFacts(pdbPathOf('symcrash'));
    const sym = await BreakpadSymbols.parse(
      Buffer.from(breakpadSymText(facts, 'symcrash.pdb', '0', 'symcrash.exe')),
      'symcrash.sym',
    );
    expect(sym.malformedLines).to.equal(0);
    const reader = await PositionedFileReader.open(pdbPathOf('symcrash'));
    try {
      const pdb = await PdbFile.open(reader, 'symcrash.pdb');
      expect(sym.module.debugId).to.equal(pdb.identity.debugId);
      for (const proc of facts.procs) {
        for (let rva = proc.rva; rva < proc.rva + proc.size; rva += 3) {
          const fromSym = await sym.lookup(rva);
          const fromPdb = await pdb.lookup(rva);
          expect(fromSym?.function).to.equal(fromPdb?.function);
          expect(fromSym?.line, `0x${rva.toString(16)}`).to.equal(fromPdb?.line);
          expect(fromSym?.file).to.equal(fromPdb?.file);
        }
      }
    } finally {
      await reader.close();
    }
  });

  it('reads the file once, line by line, and keeps only an index: a lookup reads its record again', async () => {
    // 8,000 functions of 20 lines and 20 CFI rules each (about 9 MB of text).
    const parts = [
      'MODULE windows x86_64 0123456789ABCDEF0123456789ABCDEF1 big.pdb',
      'FILE 0 big.c',
    ];
    for (let f = 0; f < 8_000; f++) {
      const rva = 0x1000 + f * 0x100;
      parts.push(`FUNC ${rva.toString(16)} 100 0 function_${f}`);
      for (let l = 0; l < 20; l++) parts.push(`${(rva + l * 8).toString(16)} 8 ${f * 100 + l} 0`);
      parts.push(`STACK CFI INIT ${rva.toString(16)} 100 .cfa: $rsp 8 + .ra: .cfa -8 + ^`);
      for (let l = 1; l < 20; l++) {
        parts.push(`STACK CFI ${(rva + l).toString(16)} .cfa: $rsp ${8 + l * 8} +`);
      }
    }
    const text = Buffer.from(`${parts.join('\n')}\n`);
    const source = new BufferSource(text);
    const sym = await BreakpadSymbols.open(source, 'big.sym');
    expect(source.bytesRead).to.equal(text.length);
    expect(sym.malformedLines).to.equal(0);
    const before = source.bytesRead;
    const hit = await sym.lookup(0x1000 + 4_321 * 0x100 + 0x21);
    expect(hit).to.deep.include({
      function: 'function_4321',
      line: 4_321 * 100 + 4,
      file: 'big.c',
    });
    const rules = await sym.stack.cfiRulesAt(0x1000 + 777 * 0x100 + 5);
    expect(rules?.cfa).to.equal('$rsp 48 +');
    // Only the FUNC block, the FILE line and the CFI record were read again (a few KB).
    expect(source.bytesRead - before).to.be.lessThan(text.length / 100);
  });

  it('a line longer than any record, and lines cut across read windows, cost only themselves', async () => {
    const long = 'x'.repeat(5 << 20);
    const text = [
      'MODULE windows x86_64 0123456789ABCDEF0123456789ABCDEF1 a.pdb',
      `FUNC 1000 10 0 ${long}`,
      'FUNC 2000 10 0 after_the_long_one',
      '2000 10 7 0',
      'FILE 0 a.c',
    ].join('\n');
    const sym = await BreakpadSymbols.parse(Buffer.from(text), 'a.sym');
    expect(sym.malformedLines).to.equal(1);
    expect(await sym.lookup(0x1004)).to.equal(undefined);
    expect(await sym.lookup(0x2004)).to.deep.include({
      function: 'after_the_long_one',
      line: 7,
      file: 'a.c',
    });
  });
});
