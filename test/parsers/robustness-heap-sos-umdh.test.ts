// Odd input never makes these parsers throw, and whatever they return still matches the schema:
// real transcript lines cut short, shuffled, joined with mixed line ends, random bytes, very long
// lines; and one megabyte lines shaped to make a careless regex backtrack for ever.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseAddressSummary } from '../../src/parsers/address-summary.js';
import { parseClrStack } from '../../src/parsers/clr-stack.js';
import { createDumpHeapStatParser, parseDumpHeapStat } from '../../src/parsers/dump-heap-stat.js';
import { parseDumpHeapShort } from '../../src/parsers/dump-heap-short.js';
import { parseEeHeapGc } from '../../src/parsers/ee-heap-gc.js';
import { parseGcRoot } from '../../src/parsers/gc-root.js';
import { parseHeapStat } from '../../src/parsers/heap-stat.js';
import { parseHeapSummary } from '../../src/parsers/heap-summary.js';
import { parsePrintException } from '../../src/parsers/print-exception.js';
import { createChunkLineSplitter, type LineParser } from '../../src/parsers/line-parser.js';
import { createUmdhDiffParser, parseUmdhDiff, parseUmdhLog } from '../../src/parsers/umdh.js';
import { validate } from '../../src/report/schemas.js';
import { ADVERSARIAL_LINES } from './adversarial-lines.js';
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
  { schema: 'gcRoot', parse: (text) => parseGcRoot(text) },
  { schema: 'dumpHeapShort', parse: (text) => parseDumpHeapShort(text) },
];

// Every transcript these parsers read, each fed to every parser: a parser must also survive the
// output of another command.
const BODIES = [
  ...['heap-s', 'heap-stat', 'pe', 'clrstack', 'umdh'].flatMap((folder) => transcriptFiles(folder)),
  ...transcriptFiles('misc', /^(?:dumpheap-stat|eeheap-gc|gcroot|address-summary)/),
  ...transcriptFiles('dotnet-dump', /^(?:gcroot|dumpheap)/),
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

  // A catastrophic backtrack shows as this test's timeout; bench/parser-worst-case.ts times them.
  describe('return a valid record for a 1 MB adversarial line', () => {
    for (const { schema, parse } of PARSERS) {
      it(schema, () => {
        for (const [name, line] of ADVERSARIAL_LINES) {
          expect(validate(schema, parse(line)).ok, `${schema} on ${name}`).to.equal(true);
        }
      });
    }
  });
});
