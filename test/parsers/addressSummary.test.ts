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

describe('parseAddressSummary: every published layout', () => {
  it('current layout, all five sections: usage, type, state, protect and largest regions', () => {
    const record = parseAddressSummary(
      transcriptBody('misc/address-summary-net5-x64-all-sections.txt'),
    );
    assertValid('addressSummary', record);
    expect(record.warnings).to.deep.equal([]);
    expect(record.layout).to.equal('current');
    expect(record.usage.map((r) => r.name)).to.deep.equal([
      'Free',
      '<unknown>',
      'Image',
      'Stack',
      'Heap',
      'Other',
      'TEB',
      'PEB',
    ]);
    expect(record.usage.find((r) => r.name === 'Heap')).to.deep.equal({
      name: 'Heap',
      regionCount: 18,
      totalSize: 0x46e000,
    });
    expect(record.otherSections?.map((s) => [s.title, s.rows.length])).to.deep.equal([
      ['Type Summary (for busy)', 3],
      ['State Summary', 3],
      ['Protect Summary (for commit)', 7],
    ]);
    const state = record.otherSections?.find((s) => s.title === 'State Summary');
    expect(state?.rows.find((r) => r.name === 'MEM_COMMIT')?.totalSize).to.equal(0x4b214000);
    expect(record.largestRegions).to.have.length(8);
    expect(record.largestRegions?.[0]).to.deep.equal({
      name: 'Free',
      baseAddress: '0x236fe910000',
      size: 0x7bbd6ba00000,
    });
  });

  it('old layout (no region counts): rows, the Tot/Busy line and the largest free region', () => {
    const record = parseAddressSummary(
      transcriptBody('misc/address-summary-old-layout-x86-dotnet-docs.txt'),
    );
    assertValid('addressSummary', record);
    expect(record.warnings).to.deep.equal([]);
    expect(record.layout).to.equal('old');
    expect(record.usage).to.have.length(10);
    expect(record.usage[0]).to.deep.equal({ name: 'RegionUsageIsVAD', totalSize: 0x701000 });
    expect(record.usage.every((r) => r.regionCount === undefined)).to.equal(true);
    expect(record).to.include({ totalBytes: 0x7fff0000, busyBytes: 0x21db000 });
    expect(record.largestFree).to.deep.equal({ baseAddress: '0x1432000', size: 0x707ee000 });
    expect(record.otherSections?.map((s) => s.title)).to.deep.equal([
      'Type Summary',
      'State Summary',
    ]);
    // The busy total is the sum of every usage row but the free one.
    const busy = record.usage
      .filter((r) => r.name !== 'RegionUsageFree')
      .reduce((sum, r) => sum + r.totalSize, 0);
    expect(busy).to.equal(record.busyBytes);
  });

  it('three-section article copy: Usage/Type/State, sizes in bytes from backtick hex', () => {
    const record = parseAddressSummary(
      transcriptBody('misc/address-summary-service-fabric-x64-three-sections.txt'),
    );
    expect(record.warnings).to.deep.equal([]);
    expect(record.usage.find((r) => r.name === '<unknown>')?.totalSize).to.equal(0xfeb0f000);
    expect(record.largestRegions).to.equal(undefined);
  });
});
