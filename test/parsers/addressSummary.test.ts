import { expect } from 'chai';
import { parseAddressSummary } from '../../src/parsers/address-summary.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcriptBody } from './heap-sos-umdh-transcripts.js';

// The one `!address -summary` text in test/fixtures/transcripts: the first usage rows quoted by
// a Microsoft support article (source in INDEX.md).
const FILE = 'misc/docs-address-summary-usage-excerpt.txt';
const PUBLISHED = transcriptBody(FILE);

describe('parseAddressSummary (!address -summary)', () => {
  it('reads the usage rows of the published excerpt: name, region count, total size in bytes', () => {
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
