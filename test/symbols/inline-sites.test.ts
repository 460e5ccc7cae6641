// Inline-site records and their binary annotations (src/symbols/inline-sites.ts). The byte
// sequences of the first tests are what lld wrote for test/targets/pdb/inlined.c at -O2, as
// `llvm-pdbutil dump --symbols` prints them (LLVM 14): "0602 line 1 (+1)", "0311 code 0x11",
// "0B2D code 0x1E (+0xD) line 2 (+1)", "0403 code end 0x21 (+0x3)". The hostile cases are bytes
// no writer emits: each ends in a `problem`, bounded, and nothing throws.
import { expect } from 'chai';
import {
  activeChain,
  decodeAnnotations,
  MAX_SITES,
  parseInlineeLines,
  parseInlineSites,
  S_INLINESITE,
  S_INLINESITE2,
  type InlineSite,
} from '../../src/symbols/inline-sites.js';

/** An S_INLINESITE (or 2) record: length, kind, parent, end, inlinee, [invocations], annotations. */
function siteRecord(
  parent: number,
  inlinee: number,
  annotations: number[],
  kind: number = S_INLINESITE,
): Buffer {
  const fixed = kind === S_INLINESITE ? 16 : 20;
  const body = fixed + annotations.length;
  const size = (body + 3) & ~3;
  const b = Buffer.alloc(size);
  b.writeUInt16LE(size - 2, 0);
  b.writeUInt16LE(kind, 2);
  b.writeUInt32LE(parent, 4);
  b.writeUInt32LE(0, 8);
  b.writeUInt32LE(inlinee, 12);
  Buffer.from(annotations).copy(b, fixed);
  return b;
}

describe('inline sites and binary annotations (src/symbols/inline-sites.ts)', () => {
  it("decodes lld's annotations for middle_step the way llvm-pdbutil prints them", () => {
    // line 1 (+1); code 0x11; code 0x1E line 2; code end 0x21
    const { ranges, problem } = decodeAnnotations(
      Uint8Array.from([0x06, 0x02, 0x03, 0x11, 0x0b, 0x2d, 0x04, 0x03]),
    );
    expect(problem).to.equal(undefined);
    expect(ranges).to.deep.equal([
      { start: 0x11, end: 0x1e, lineDelta: 1 },
      { start: 0x1e, end: 0x21, lineDelta: 2 },
    ]);
  });

  it('reads padding (opcode 0) as the end, and a ChangeFile on the ranges after it', () => {
    // code 0xA line 1; file 0x18; code 0xD line 2; code end 0x10; then padding
    const { ranges } = decodeAnnotations(
      Uint8Array.from([0x0b, 0x2a, 0x05, 0x18, 0x0b, 0x23, 0x04, 0x03, 0x00, 0x00]),
    );
    expect(ranges).to.deep.equal([
      { start: 0xa, end: 0xd, lineDelta: 1 },
      { start: 0xd, end: 0x10, lineDelta: 2, file: 0x18 },
    ]);
  });

  it('decodes two- and four-byte numbers, negative line offsets and ChangeCodeLengthAndCodeOffset', () => {
    // CodeOffset 0x1234 (2 bytes: 0x92 0x34); line -3 (0x07); length 0x10 at +0 (opcode 12);
    // then CodeOffset 0x01020304 (4 bytes: 0xC1 0x02 0x03 0x04) and a range of 2 there.
    const { ranges, problem } = decodeAnnotations(
      Uint8Array.from([
        0x01, 0x92, 0x34, 0x06, 0x07, 0x0c, 0x10, 0x00, 0x01, 0xc1, 0x02, 0x03, 0x04, 0x0c, 0x02,
        0x00,
      ]),
    );
    expect(problem).to.equal(undefined);
    expect(ranges).to.deep.equal([
      { start: 0x1234, end: 0x1244, lineDelta: -3 },
      { start: 0x01020304, end: 0x01020306, lineDelta: -3 },
    ]);
  });

  it('drops a range never closed (its end is unknown) rather than stretch it', () => {
    const { ranges, problem } = decodeAnnotations(Uint8Array.from([0x03, 0x05]));
    expect(problem).to.equal(undefined);
    expect(ranges).to.deep.equal([]);
  });

  for (const [what, bytes, message] of [
    ['a two-byte number cut by the end', [0x03, 0x80], /cut or invalid compressed number/],
    ['a four-byte number cut by the end', [0x03, 0xc0, 0x01], /cut or invalid compressed number/],
    ['the reserved 0xE0 prefix', [0x03, 0xe0, 0, 0, 0], /cut or invalid compressed number/],
    ['an opcode with no operand', [0x0b], /cut or invalid compressed number/],
    ['an unknown opcode', [0x0e, 0x01], /unknown opcode 14/],
    ['separated code', [0x02, 0x01, 0x03, 0x01], /separated code/],
    [
      'ChangeCodeLengthAndCodeOffset without its offset',
      [0x0c, 0x04],
      /cut ChangeCodeLengthAndCodeOffset/,
    ],
  ] as const) {
    it(`says what is wrong with ${what}, at which byte, and throws nothing`, () => {
      const result = decodeAnnotations(Uint8Array.from(bytes));
      expect(result.problem).to.match(message);
      expect(result.problem).to.match(/at annotation byte \d+/);
    });
  }

  it('stops at a code offset past 4 GiB (offsets only grow: a loop of deltas is bounded)', () => {
    const bytes = [0x01, 0xdf, 0xff, 0xff, 0xff];
    for (let i = 0; i < 16; i++) bytes.push(0x03, 0xdf, 0xff, 0xff, 0xff);
    expect(decodeAnnotations(Uint8Array.from(bytes)).problem).to.match(/past 4 GiB/);
  });

  it('reads S_INLINESITE and S_INLINESITE2 records with their offsets, skipping others', () => {
    const other = Buffer.from([0x06, 0x00, 0x4e, 0x11, 0, 0, 0, 0]); // an S_INLINESITE_END padded
    const first = siteRecord(0x40, 0x1000, [0x03, 0x02, 0x04, 0x05]);
    const second = siteRecord(0x80, 0x1001, [0x03, 0x03, 0x04, 0x01], S_INLINESITE2);
    const { sites, problem } = parseInlineSites(Buffer.concat([first, other, second]), 0x80);
    expect(problem).to.equal(undefined);
    expect(sites).to.deep.equal([
      { offset: 0x80, parent: 0x40, inlinee: 0x1000, ranges: [{ start: 2, end: 7, lineDelta: 0 }] },
      {
        offset: 0x80 + first.length + other.length,
        parent: 0x80,
        inlinee: 0x1001,
        ranges: [{ start: 3, end: 4, lineDelta: 0 }],
      },
    ]);
  });

  it('says so when a record is cut, is shorter than an inline site, or there are too many', () => {
    const whole = siteRecord(0, 0x1000, [0x03, 0x02, 0x04, 0x05]);
    expect(parseInlineSites(whole.subarray(0, whole.length - 4), 0).problem).to.match(/is cut/);
    const short = Buffer.from([0x06, 0x00, 0x4d, 0x11, 0, 0, 0, 0]);
    expect(parseInlineSites(short, 0).problem).to.match(/an inline site at offset 0 of 6 bytes/);
    const many = Buffer.concat(
      Array.from({ length: MAX_SITES + 1 }, () => siteRecord(0, 0x1000, [])),
    );
    const result = parseInlineSites(many, 0);
    expect(result.problem).to.match(/more than 4096 inline sites/);
    expect(result.sites.length).to.equal(MAX_SITES);
  });

  it('finds the chain of active sites innermost first, and trusts no chain whose parent disagrees', () => {
    const outer: InlineSite = {
      offset: 100,
      parent: 10, // the procedure
      inlinee: 0x1000,
      ranges: [{ start: 0x10, end: 0x20, lineDelta: 1 }],
    };
    const inner: InlineSite = {
      offset: 200,
      parent: 100,
      inlinee: 0x1001,
      ranges: [{ start: 0x14, end: 0x18, lineDelta: 2 }],
    };
    const chain = activeChain([outer, inner], 0x15);
    expect(chain.map((a) => a.site.inlinee)).to.deep.equal([0x1001, 0x1000]);
    expect(activeChain([outer, inner], 0x1a).map((a) => a.site.inlinee)).to.deep.equal([0x1000]);
    expect(activeChain([outer, inner], 0x30)).to.deep.equal([]);
    // The inner site claims bytes its parent does not hold: neither the inner nor a made-up chain.
    const stray: InlineSite = { ...inner, ranges: [{ start: 0x40, end: 0x48, lineDelta: 0 }] };
    expect(activeChain([outer, stray], 0x41)).to.deep.equal([]);
    // Parents that point at each other: no chain, and the search ends.
    const a: InlineSite = { ...outer, parent: 200 };
    const b: InlineSite = { ...inner, parent: 100, ranges: outer.ranges };
    expect(activeChain([a, b], 0x15)).to.deep.equal([]);
  });

  it('reads DEBUG_S_INLINEELINES, plain and with extra files, and says when it is cut', () => {
    const plain = Buffer.alloc(4 + 24);
    plain.writeUInt32LE(0, 0);
    plain.writeUInt32LE(0x1000, 4);
    plain.writeUInt32LE(0, 8);
    plain.writeUInt32LE(24, 12);
    plain.writeUInt32LE(0x1001, 16);
    plain.writeUInt32LE(0x18, 20);
    plain.writeUInt32LE(19, 24);
    const parsed = parseInlineeLines(plain);
    expect(parsed.problem).to.equal(undefined);
    expect([...parsed.inlinees]).to.deep.equal([
      [0x1000, { file: 0, line: 24 }],
      [0x1001, { file: 0x18, line: 19 }],
    ]);
    const extra = Buffer.alloc(4 + 12 + 4 + 8);
    extra.writeUInt32LE(1, 0);
    extra.writeUInt32LE(0x1002, 4);
    extra.writeUInt32LE(0x30, 8);
    extra.writeUInt32LE(40, 12);
    extra.writeUInt32LE(2, 16);
    expect([...parseInlineeLines(extra).inlinees]).to.deep.equal([
      [0x1002, { file: 0x30, line: 40 }],
    ]);
    expect(parseInlineeLines(plain.subarray(0, 20)).problem).to.match(/cut at byte 16/);
    expect(parseInlineeLines(Buffer.from([7, 0, 0, 0])).problem).to.match(/unknown signature 7/);
  });
});
