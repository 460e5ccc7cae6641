// MINIDUMP_STRING reads (src/minidump/strings.ts): the in-memory read (readMinidumpStringNow,
// used when the whole dump is held) must give exactly the answers of the positioned read, for a
// good string and for every refusal: RVA 0, a length field past the end, an odd length, a length
// over the cap, a body past the end, and a budget that says no (asked once, with the length).
import { expect } from 'chai';
import {
  MAX_STRING_BYTES,
  readMinidumpString,
  readMinidumpStringNow,
} from '../../src/minidump/strings.js';

/** A file holding `text` as a MINIDUMP_STRING at offset 8, then `tail` more bytes. */
function fileWith(lengthField: number, text: string, tail = 0): Buffer {
  const body = Buffer.from(text, 'utf16le');
  const file = Buffer.alloc(8 + 4 + body.length + tail, 0x41);
  file.writeUInt32LE(lengthField, 8);
  body.copy(file, 12);
  return file;
}

describe('MINIDUMP_STRING (minidump/strings)', function () {
  it('answers the same from a held file as from positioned reads, refusals included', async function () {
    const good = fileWith(10, 'héllo', 4);
    const cases: Array<[string, Buffer, number]> = [
      ['a good string', good, 8],
      ['RVA 0', good, 0],
      ['a length field past the end', good, good.length - 2],
      ['an odd length', fileWith(9, 'héllo'), 8],
      ['a length over the cap', fileWith(MAX_STRING_BYTES + 2, 'x'), 8],
      ['a body past the end', fileWith(40, 'héllo'), 8],
    ];
    for (const [what, file, rva] of cases) {
      const read = (offset: number, length: number) =>
        Promise.resolve(file.subarray(offset, Math.min(file.length, offset + length)));
      const asked: number[][] = [[], []];
      const positioned = await readMinidumpString(read, rva, file.length, (n) => {
        asked[0]!.push(n);
        return true;
      });
      const held = readMinidumpStringNow(file, rva, (n) => {
        asked[1]!.push(n);
        return true;
      });
      expect(held, what).to.deep.equal(positioned);
      expect(asked[1], what).to.deep.equal(asked[0]);
    }
    expect(readMinidumpStringNow(good, 8)).to.deep.equal({ ok: true, value: 'héllo' });
    const refused = readMinidumpStringNow(good, 8, () => false);
    expect(refused).to.deep.equal(
      await readMinidumpString(
        (o, n) => Promise.resolve(good.subarray(o, o + n)),
        8,
        good.length,
        () => false,
      ),
    );
    expect(refused.ok).to.equal(false);
  });
});
