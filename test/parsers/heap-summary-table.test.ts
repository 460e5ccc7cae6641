// `parse --text` of `!heap -s` prints cdb's table, one row per heap: each real transcript's table
// lines (rows, headers, rules, fragmentation and virtual-block lines) come back as cdb printed
// them, from the parsed record alone.
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { formatHeapSummaryTable } from '../../src/parsers/heap-summary-table.js';
import { parseHeapSummary } from '../../src/parsers/heap-summary.js';
import { formatEnvelope } from '../../src/cli/commands/parse.js';
import { parseText } from '../../src/parsers/parse-text.js';
import { transcriptBody } from './heap-sos-umdh-transcripts.js';

// 00000218f1710000 00000002   65320  14712  64928   5575   163    16    2      c   LFH
const ROW_RE = /^[0-9a-f]{8,16} [0-9a-f]{8} /;
//   Heap     Flags   Reserv  Commit  Virt   Free  List   UCR  Virt  Lock  Fast
//                     (k)     (k)    (k)     (k) length      blocks cont. heap
// -----------------------------------------------------------------------------
//     External fragmentation  38 % (163 free blocks)
// Virtual block: 07dc0000 - 07dc0000 (size 00000000)
// LFH Key                   : 0xa893144b6b979747
// Termination on corruption : ENABLED
const TABLE_LINE_RE =
  /^(?:\s*Heap\s+Flags|\s*\(k\)|-{10,}$|\s*External fragmentation|Virtual block:|LFH Key|Termination on corruption)/;

function tableLines(body: string): string[] {
  return body
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => ROW_RE.test(line) || TABLE_LINE_RE.test(line));
}

const files = readdirSync(new URL('../fixtures/transcripts/heap-s/', import.meta.url)).filter((f) =>
  f.endsWith('.txt'),
);

describe('formatHeapSummaryTable (!heap -s as cdb prints it)', () => {
  for (const file of files) {
    it(`rebuilds the table of ${file}`, () => {
      const body = transcriptBody(`heap-s/${file}`);
      const expected = tableLines(body);
      const record = parseHeapSummary(body);
      expect(
        formatHeapSummaryTable(record).filter((l) => TABLE_LINE_RE.test(l) || ROW_RE.test(l)),
      ).to.deep.equal(expected);
      expect(record.heaps.length).to.equal(expected.filter((l) => ROW_RE.test(l)).length);
    });
  }

  it('parse --text prints one line per heap, not only the total', () => {
    const body = transcriptBody('heap-s/hueifeng-win10-x64-nt-external-fragmentation.txt');
    const text = formatEnvelope(parseText(body));
    for (const line of tableLines(body).filter((l) => ROW_RE.test(l)))
      expect(text).to.contain(`    ${line}\n`);
  });
});
