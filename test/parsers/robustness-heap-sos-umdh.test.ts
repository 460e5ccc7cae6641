// Odd input never makes these parsers throw, and whatever they return still matches the schema:
// real transcript lines cut short, shuffled, joined with mixed line ends, random bytes, very long
// lines; and one megabyte lines shaped to make a careless regex backtrack for ever.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseAddressSummary } from '../../src/parsers/address-summary.js';
import { parseClrStack } from '../../src/parsers/clr-stack.js';
import { createDumpHeapStatParser, parseDumpHeapStat } from '../../src/parsers/dump-heap-stat.js';
import { parseEeHeapGc } from '../../src/parsers/ee-heap-gc.js';
import { parseHeapStat } from '../../src/parsers/heap-stat.js';
import { parseHeapSummary } from '../../src/parsers/heap-summary.js';
import { parsePrintException } from '../../src/parsers/print-exception.js';
import { createChunkLineSplitter, type LineParser } from '../../src/parsers/line-parser.js';
import { createUmdhDiffParser, parseUmdhDiff, parseUmdhLog } from '../../src/parsers/umdh.js';
import { validate } from '../../src/report/schemas.js';
import { transcriptBody, transcriptFiles } from './heap-sos-umdh-transcripts.js';

const PARSERS: { schema: string; parse: (text: string) => unknown }[] = [
  { schema: 'heapSummary', parse: parseHeapSummary },
  { schema: 'heapStat', parse: parseHeapStat },
  { schema: 'printException', parse: parsePrintException },
  { schema: 'clrStack', parse: parseClrStack },
  { schema: 'dumpHeapStat', parse: parseDumpHeapStat },
  { schema: 'eeHeapGc', parse: parseEeHeapGc },
  { schema: 'addressSummary', parse: parseAddressSummary },
  { schema: 'umdhDiff', parse: parseUmdhDiff },
  { schema: 'umdhLog', parse: parseUmdhLog },
];

// Every transcript these parsers read, each fed to every parser: a parser must also survive the
// output of another command.
const BODIES = [
  ...['heap-s', 'heap-stat', 'pe', 'clrstack', 'umdh'].flatMap((folder) => transcriptFiles(folder)),
  ...transcriptFiles('misc', /^(?:dumpheap-stat|eeheap-gc)/),
].map(transcriptBody);
const LINES = BODIES.flatMap((body) => body.split('\n'));

function checkAll(text: string): void {
  for (const { schema, parse } of PARSERS) {
    const record = parse(text);
    const result = validate(schema, record);
    expect(result.errors, `${schema}: ${result.errors.join('; ')}`).to.deep.equal([]);
  }
}

const body = fc.constantFrom(...BODIES);
const RUNS = { numRuns: 60 };

describe('heap, SOS and umdh parsers on odd input', () => {
  it('survive real lines cut short at any point', () => {
    fc.assert(
      fc.property(body, fc.array(fc.nat()), (text, cuts) => {
        const lines = text.split('\n');
        const cut = lines.map((line, i) =>
          line.slice(0, (cuts[i] ?? line.length) % (line.length + 1)),
        );
        checkAll(cut.join('\n'));
      }),
      RUNS,
    );
  });

  it('survive real lines in any order', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(LINES, { minLength: 1, maxLength: 80 }), (lines) => {
        checkAll(lines.join('\n'));
      }),
      RUNS,
    );
  });

  it('survive random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
        checkAll(Buffer.from(bytes).toString('utf8'));
        checkAll(Buffer.from(bytes).toString('latin1'));
      }),
      RUNS,
    );
  });

  it('give the same record whatever mix of LF, CRLF and CR CR LF ends the lines', () => {
    fc.assert(
      fc.property(body, fc.array(fc.constantFrom('\n', '\r\n', '\r\r\n')), (text, ends) => {
        const lines = text.split('\n');
        const mixed = lines
          .map((line, i) => line + (i < lines.length - 1 ? (ends[i] ?? '\r\n') : ''))
          .join('');
        for (const { schema, parse } of PARSERS) {
          expect(parse(mixed), schema).to.deep.equal(parse(text));
        }
      }),
      { numRuns: 30 },
    );
  });

  it('survive 10,000-character lines built from real line starts', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LINES),
        fc.string({ minLength: 1, maxLength: 8 }),
        body,
        (start, unit, text) => {
          const long = (start + unit.repeat(Math.ceil(10_000 / unit.length))).slice(0, 10_000);
          checkAll(`${text}\n${long}\n${long}`);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('stream the same record from chunks cut anywhere as from the whole text', () => {
    const streamed = <R>(parser: LineParser<R>, text: string, cuts: number[]): R => {
      const splitter = createChunkLineSplitter((line) => parser.push(line));
      let at = 0;
      for (const cut of [...cuts].sort((x, y) => x - y)) {
        const end = cut % (text.length + 1);
        if (end < at) continue;
        splitter.write(text.slice(at, end));
        at = end;
      }
      splitter.write(text.slice(at));
      splitter.end();
      return parser.finish();
    };
    fc.assert(
      fc.property(body, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
        const crlf = text.replace(/\n/g, '\r\n');
        expect(streamed(createUmdhDiffParser(), crlf, cuts)).to.deep.equal(parseUmdhDiff(text));
        expect(streamed(createDumpHeapStatParser(), crlf, cuts)).to.deep.equal(
          parseDumpHeapStat(text),
        );
      }),
      RUNS,
    );
  });

  describe('finish a 1 MB adversarial line in under a second', () => {
    const MB = 1 << 20;
    const fill = (unit: string, prefix = '', suffix = 'x'): string =>
      prefix + unit.repeat(Math.ceil((MB - prefix.length) / unit.length)).slice(0, MB) + suffix;
    // Each shape aims at one family of regexes: runs that a quantifier may split many ways, with a
    // last character that makes the match fail only at the very end.
    const SHAPES: [string, string][] = [
      ['one hex run', fill('0')],
      ['spaces then a letter', fill(' ')],
      ['digits separated by single spaces', fill('1 ', '00310000 00001002 ')],
      ['digits separated by runs of spaces', fill('7   ', '0000021CB3460000  ')],
      ['umdh header lookalike', fill('0 ', '+ 2a98c90 ( ')],
      ['umdh count lookalike', fill(' ', '+ 15cf4 ( 15cf4 - 0)')],
      ['source bracket opened many times', fill(' [a @ 1', '00aff1f4 0113089a X')],
      ['inner exception commas', fill(', Use !PrintException a', 'InnerException:   T')],
      [
        'size pair repeats',
        fill('  0x1(1)', '0000021CB3460000  0000021CB3461000  0000021CB3464FF0'),
      ],
      ['address summary lookalike', fill('a 1 0`1 ( 1.0 MB) ', '--- Usage Summary --- RgnCount\n')],
      ['variable lookalike', fill('a (', '        ')],
      ['noise marker repeats', fill('*** WARNING: ', '0000003a9acfef00 00007ffce4f7063c ')],
    ];
    for (const { schema, parse } of PARSERS) {
      it(schema, () => {
        for (const [name, line] of SHAPES) {
          const started = performance.now();
          const record = parse(line);
          const ms = performance.now() - started;
          expect(ms, `${schema} on ${name}: ${ms.toFixed(0)} ms`).to.be.below(1000);
          expect(validate(schema, record).ok, `${schema} on ${name}`).to.equal(true);
        }
      });
    }
  });
});
