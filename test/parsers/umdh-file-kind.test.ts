// umdh-diff tells a snapshot log from a comparison report by the parsers' own line patterns, so
// every layout `parse` reads is taken: each real umdh transcript of the repository is sorted into
// the kind whose parser reads entries from it (before, the newer one-allocation-per-entry log of
// umdh/mahdytech-umdh-log-allocation-no-symbols.txt parsed but umdh-diff refused it), and
// umdh-diff runs over two snapshots of that layout.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseUmdhDiff } from '../../src/parsers/umdh.js';
import { umdhFileKind } from '../../src/parsers/umdh-file-kind.js';
import { parseUmdhLog } from '../../src/parsers/umdh-log.js';
import { runUmdhDiff } from '../../src/workflows/umdh/umdh-diff.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { transcriptBody, transcriptFiles } from './heap-sos-umdh-transcripts.js';

describe('umdh file kind: every layout the parsers read', () => {
  for (const file of transcriptFiles('umdh')) {
    it(`${file}: the kind whose parser reads it`, () => {
      const body = transcriptBody(file);
      const log = parseUmdhLog(body).entries.length > 0;
      const diff = parseUmdhDiff(body);
      const comparison =
        diff.entries.length > 0 ||
        diff.totalIncrease !== undefined ||
        diff.totalDecrease !== undefined;
      const expected = log ? 'log' : comparison ? 'comparison' : null;
      expect(expected, 'a transcript no parser reads').to.not.equal(null);
      expect(umdhFileKind(body)).to.equal(expected);
    });
  }

  it('umdh-diff compares two snapshot logs of the one-allocation-per-entry layout', async () => {
    const dir = makeTempDir('umdh-kind');
    const body = transcriptBody('umdh/mahdytech-umdh-log-allocation-no-symbols.txt');
    const first = join(dir, 'snap1.log');
    const second = join(dir, 'snap2.log');
    writeFileSync(first, body);
    // The same stack holding a second allocation in the later snapshot.
    writeFileSync(second, `${body}\n${body.replace('at 206EDDA8BA0', 'at 206EDDA9000')}`);
    const trend = await runUmdhDiff({ files: [first, second] });
    expect(trend.snapshots.map((s) => s.kind)).to.deep.equal(['log', 'log']);
    expect(trend.stacks[0]?.backtrace).to.equal('BackTraceEDD4EEA6');
    expect(trend.stacks[0]?.bytes).to.deep.equal([0x30, 0x60]);
  });
});
