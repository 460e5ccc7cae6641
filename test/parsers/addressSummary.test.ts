import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAddressSummary } from '../../src/parsers/address-summary.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcriptsDir } from './heap-sos-umdh-transcripts.js';

// No file under shared/transcripts holds `!address -summary` output (checked below). These lines
// are real cdb output quoted from MicrosoftDocs/SupportArticles-docs,
// support/windows-server/performance/troubleshoot-application-service-memory-leaks.md (commit
// 116e1ccd); they belong in shared/transcripts, which this project cannot write to.
const PUBLISHED = [
  '0:000> !address -summary',
  '',
  '--- Usage Summary ---------------- RgnCount ----------- Total Size -------- %ofBusy %ofTotal',
  'Free                                     58        0`85c87000 (   2.090 GB)           52.26%',
  '<unknown>                                56        0`7866f000 (   1.881 GB)  98.52%   47.03%',
  'Image                                   116        0`016de000 (  22.867 MB)   1.17%    0.56%',
  'Stack64                                   9        0`000c0000 ( 768.000 kB)   0.04%    0.02%',
].join('\n');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe('parseAddressSummary (!address -summary)', () => {
  it('has no transcript to test against (so the published sample below stands in)', () => {
    const withCommand = filesUnder(transcriptsDir()).filter((file) =>
      /!address\s+-summary|--- Usage Summary/i.test(readFileSync(file, 'utf8')),
    );
    expect(withCommand).to.deep.equal([]);
  });

  it('reads the usage rows of the published sample: name, region count, total size in bytes', () => {
    const record = parseAddressSummary(PUBLISHED);
    assertValid('addressSummary', record);
    expect(record.usage).to.deep.equal([
      { name: 'Free', regionCount: 58, totalSize: 0x85c87000 },
      { name: '<unknown>', regionCount: 56, totalSize: 0x7866f000 },
      { name: 'Image', regionCount: 116, totalSize: 0x016de000 },
      { name: 'Stack64', regionCount: 9, totalSize: 0x000c0000 },
    ]);
    expect(record.warnings).to.deep.equal([]);
  });

  it('warns about rows outside any summary table', () => {
    const record = parseAddressSummary(PUBLISHED.split('\n').slice(3).join('\n'));
    expect(record.usage).to.deep.equal([]);
    expect(record.warnings).to.have.length(4);
  });
});
