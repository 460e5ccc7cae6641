// The .sym index's record reader (recordAt in src/symbols/breakpad-index.ts) runs its patterns in
// place, on the latin1 text of a whole window, at each line's start. Here it is held to the plain
// reading: the same grammar matched against the line alone, decoded as UTF-8. Lines come from the
// record grammar (https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/docs/symbol_files.md),
// damaged at random with a seed (a failure can be replayed), with neighbours on both sides.
import { expect } from 'chai';
import {
  CFI_RECORD,
  FILE_RECORD,
  FUNC_RECORD,
  NONE,
  ORIGIN_RECORD,
  PUBLIC_RECORD,
  WIN_RECORD,
  fields,
  recordAt,
} from '../../src/symbols/breakpad-index.js';
import { xorshift32 } from '../helpers/seeded-random.js';

/** The grammar's records, anchored, for one line alone (the reading recordAt must agree with). */
const PLAIN: [RegExp, number][] = [
  [/^FUNC (?:m )?([0-9a-fA-F]{1,16}) ([0-9a-fA-F]{1,16}) [0-9a-fA-F]+ /, FUNC_RECORD],
  [/^PUBLIC (?:m )?([0-9a-fA-F]{1,16}) [0-9a-fA-F]+ /, PUBLIC_RECORD],
  [/^FILE (\d{1,9}) /, FILE_RECORD],
  [/^INLINE_ORIGIN (\d{1,9}) /, ORIGIN_RECORD],
  [/^STACK CFI INIT ([0-9a-fA-F]{1,16}) ([0-9a-fA-F]{1,16}) /, CFI_RECORD],
  [/^STACK WIN [0-9a-fA-F]+ ([0-9a-fA-F]{1,16}) ([0-9a-fA-F]{1,16}) /, WIN_RECORD],
];

function plain(line: string): { kind: number; numbers: number[] } {
  for (const [pattern, kind] of PLAIN) {
    const m = pattern.exec(line);
    if (m === null) continue;
    if (kind === FILE_RECORD || kind === ORIGIN_RECORD) return { kind, numbers: [Number(m[1])] };
    const address = parseInt(m[1] ?? '', 16);
    return {
      kind,
      numbers: kind === PUBLIC_RECORD ? [address] : [address, parseInt(m[2] ?? '', 16)],
    };
  }
  return { kind: NONE, numbers: [] };
}

/** One record of each kind: what a pattern that searched on past its line would find. */
const EVERY_KIND =
  '\nFILE 7 z.c\nINLINE_ORIGIN 5 q\nFUNC 10 2 0 f\nPUBLIC 1 0 p\nSTACK CFI INIT 1 2 .cfa\nSTACK WIN 4 1 2 0 x';

/** recordAt on `line` inside a window, between other lines, as the index calls it. */
function inWindow(
  line: string,
  before = 'FILE 9 x.c\n',
  after = EVERY_KIND,
): {
  kind: number;
  numbers: number[];
} {
  const window = Buffer.concat([Buffer.from(before), Buffer.from(line), Buffer.from(after)]);
  const kind = recordAt(window.toString('latin1'), Buffer.byteLength(before));
  if (kind === NONE) return { kind, numbers: [] };
  const one = kind === PUBLIC_RECORD || kind === FILE_RECORD || kind === ORIGIN_RECORD;
  return { kind, numbers: one ? [fields[0]!] : [fields[0]!, fields[1]!] };
}

describe('.sym index records (src/symbols/breakpad-index.ts, recordAt)', () => {
  it('reads each record kind the index keeps', () => {
    const lines: [string, number, number[]][] = [
      ['FUNC m 1690 30 0 store_value', FUNC_RECORD, [0x1690, 0x30]],
      ['FUNC 14b0 1a 4 WinMainCRTStartup', FUNC_RECORD, [0x14b0, 0x1a]],
      ['FUNC 12345678901234 10 0 sixteen_digits_allowed', FUNC_RECORD, [0x12345678901234, 0x10]],
      ['PUBLIC m 14b0 0 WinMainCRTStartup', PUBLIC_RECORD, [0x14b0]],
      ['FILE 17 /work/src/symcrash.c', FILE_RECORD, [17]],
      ['INLINE_ORIGIN 3 inner_helper', ORIGIN_RECORD, [3]],
      ['STACK CFI INIT 1690 30 .cfa: $rsp 8 + .ra: .cfa -8 + ^', CFI_RECORD, [0x1690, 0x30]],
      ['STACK WIN 4 1600 25 4 0 0 0 8 0 1 $T0 $ebp = $eip', WIN_RECORD, [0x1600, 0x25]],
    ];
    for (const [line, kind, numbers] of lines) {
      expect(inWindow(line), line).to.deep.equal({ kind, numbers });
    }
  });

  it('never reads past its line, whatever follows it in the window', () => {
    // Cut records whose missing part the next line would complete.
    for (const [line, after] of [
      ['FUNC 1690 30 0', ' name\nFILE 1 a'],
      ['FILE 12', ' a.c'],
      ['STACK CFI INIT 1690', ' 30 .cfa'],
    ] as const) {
      expect(inWindow(line, 'x\n', `\n${after}`).kind, line).to.equal(NONE);
      expect(inWindow(line, 'x\n', `\r\n${after}`).kind, line).to.equal(NONE);
    }
  });

  it('agrees with the line read alone on damaged lines (seeded)', () => {
    const next = xorshift32(0x5eed5);
    const pick = <T>(list: readonly T[]): T => list[next() % list.length]!;
    const hex = (max: number) => {
      let s = '';
      for (let i = next() % (max + 1); i > 0; i--) s += pick([...'0123456789abcdefABCDEF']);
      return s;
    };
    const dec = () => String(next()).slice(0, 1 + (next() % 11));
    const templates = [
      () => `FUNC ${pick(['', 'm ', 'M '])}${hex(17)} ${hex(17)} ${hex(3)} name_${hex(2)}`,
      () => `PUBLIC ${pick(['', 'm '])}${hex(17)} ${hex(3)} pub`,
      () => `FILE ${dec()} c:\\src\\a.cpp`,
      () => `INLINE_ORIGIN ${dec()} inner`,
      () => `STACK CFI INIT ${hex(17)} ${hex(17)} .cfa: $esp 4 +`,
      () => `STACK WIN ${hex(2)} ${hex(17)} ${hex(17)} 0 0 4 0 0 1 $T0 .raSearch =`,
    ];
    const damage = (line: string): string => {
      const at = next() % (line.length + 1);
      switch (next() % 6) {
        case 0:
          return line.slice(0, at); // cut
        case 1:
          return `${line.slice(0, at)} ${line.slice(at)}`; // a space more
        case 2:
          return `${line.slice(0, at)}${line.slice(at + 1)}`; // a character less
        case 3:
          return `${line.slice(0, at)}${pick(['g', '-', '\t', 'é', '\u00ff', '0'])}${line.slice(at)}`;
        default:
          return line;
      }
    };
    let records = 0;
    for (let i = 0; i < 20_000; i++) {
      const line = damage(pick(templates)());
      const expected = plain(line);
      if (expected.kind !== NONE) records++;
      expect(inWindow(line), JSON.stringify(line)).to.deep.equal(expected);
    }
    // Both sides of the rule are exercised: records and lines that are none.
    expect(records).to.be.within(5_000, 19_000);
  });
});
