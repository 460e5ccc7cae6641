// One FUNC block of a .sym file (src/symbols/breakpad-func-block.ts): parsed with its line and
// INLINE records (grammar: https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/docs/symbol_files.md),
// lines sorted by address whatever order the file gives them, and the answer for an address.
import { expect } from 'chai';
import { functionHit, parseFuncBlock } from '../../src/symbols/breakpad-func-block.js';

const BLOCK = [
  'FUNC m 1690 30 0 store_value',
  '16a8 8 14 2', // out of order on purpose
  '1690 18 12 1',
  'INLINE 0 13 1 3 1698 8 16a8 4',
  'not a record: skipped',
  '',
].join('\r\n');

describe('.sym FUNC blocks (src/symbols/breakpad-func-block.ts)', () => {
  it('reads the FUNC line, its line records sorted by address, and its INLINE ranges', () => {
    const f = parseFuncBlock(Buffer.from(BLOCK));
    expect(f).to.deep.include({ rva: 0x1690, size: 0x30, name: 'store_value' });
    expect(f?.lineRvas).to.deep.equal([0x1690, 0x16a8]);
    expect(f?.lineEnds).to.deep.equal([0x16a8, 0x16b0]);
    expect(f?.lineNumbers).to.deep.equal([12, 14]);
    expect(f?.lineFiles).to.deep.equal([1, 2]);
    expect(f?.inlines).to.deep.equal([
      {
        depth: 0,
        callLine: 13,
        callFile: 1,
        origin: 3,
        ranges: [
          [0x1698, 0x16a0],
          [0x16a8, 0x16ac],
        ],
      },
    ]);
  });

  it('is no block without a FUNC line first', () => {
    expect(parseFuncBlock(Buffer.from('1690 18 12 1\nFUNC 1690 30 0 f\n'))).to.equal(undefined);
  });

  it('answers for an address: offset in the function, the line when there is one, inlines', () => {
    const f = parseFuncBlock(Buffer.from(BLOCK));
    if (f === undefined) throw new Error('no block');
    expect(functionHit(f, 0x16aa, 'b.c', 1, undefined)).to.deep.equal({
      function: 'store_value',
      functionOffset: 0x1a,
      kind: 'function',
      file: 'b.c',
      line: 14,
    });
    const inlines = [{ function: 'inner', callLine: 13, callFile: 'a.c' }];
    expect(functionHit(f, 0x16b8, undefined, -1, inlines)).to.deep.equal({
      function: 'store_value',
      functionOffset: 0x28,
      kind: 'function',
      inlines,
    });
  });
});
