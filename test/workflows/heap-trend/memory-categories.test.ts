import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseWinedbgInfoMaps } from '../../../src/engine/dialects/winedbg/info-maps.js';
import { parseAddressSummary } from '../../../src/parsers/address-summary.js';
import { parseEeHeapGc } from '../../../src/parsers/ee-heap-gc.js';
import {
  MEM_COMMIT,
  MEM_FREE,
  MEM_IMAGE,
  MEM_PRIVATE,
  MEM_RESERVE,
  type MemoryRegion,
} from '../../../src/minidump/streams/memory-info-list.js';
import {
  categoriesFromAddressSummary,
  categorizeListedRegions,
  categorizeRegions,
} from '../../../src/workflows/heap-trend/memory-categories.js';
import { transcriptBody } from '../../parsers/heap-sos-umdh-transcripts.js';
import { REPO_ROOT } from '../../helpers/wine.js';

/** A memory-list row (read-write); a free row has no type, the others are private unless said. */
function region(
  base: number,
  alloc: number,
  size: number,
  state: number,
  type = state === MEM_FREE ? 0 : MEM_PRIVATE,
): MemoryRegion {
  return {
    baseAddress: BigInt(base),
    allocationBase: BigInt(alloc),
    allocationProtect: 4,
    regionSize: BigInt(size),
    state,
    protect: 4,
    type,
  };
}

function kb(rows: { id: string; committedKb: number }[], id: string): number | undefined {
  return rows.find((r) => r.id === id)?.committedKb;
}

describe('memory by category', () => {
  it('from !address -summary, current layout: Heap, Stack, Image as printed, shareable apart, Free as a total', () => {
    const record = parseAddressSummary(
      transcriptBody('misc/address-summary-service-fabric-x64-three-sections.txt'),
    );
    const { categories: rows, totals } = categoriesFromAddressSummary(record);
    expect(kb(rows, 'heap')).to.equal(0x0b997000 / 1024);
    expect(kb(rows, 'stack')).to.equal(0x16880000 / 1024);
    expect(kb(rows, 'image')).to.equal(0x0e989000 / 1024);
    // No MappedFile row: every MEM_MAPPED byte (Type section: 0xe26000) is shareable, taken from
    // Other (all of its 0x1cd000) first, then from <unknown>.
    expect(kb(rows, 'mapped')).to.equal(0);
    expect(kb(rows, 'shareable')).to.equal(0xe26000 / 1024);
    expect(kb(rows, 'other')).to.equal(0);
    expect(kb(rows, 'private data')).to.equal(
      (0xfeb0f000 + 0xb8000 + 0x1000 - (0xe26000 - 0x1cd000)) / 1024,
    );
    // No SOS in this attach: no managed heap row (the GC heap is inside private data).
    expect(rows.map((r) => r.id)).to.not.include('managed heap');
    const busy = rows.reduce((n, r) => n + r.committedKb, 0);
    const free = record.usage.find((r) => r.name === 'Free')?.totalSize ?? 0;
    const all = record.usage.reduce((n, r) => n + r.totalSize, 0);
    expect(busy).to.equal((all - free) / 1024);
    expect(totals).to.deep.equal({
      committedKb: 0x61cf9000 / 1024,
      reservedKb: 0xcdc3c000 / 1024,
      freeKb: 0x7ffed06bb000 / 1024,
    });
  });

  it('from !address -summary with SOS in the same attach: the GC`s committed bytes are the managed heap', () => {
    const record = parseAddressSummary(
      transcriptBody('misc/address-summary-net5-x64-all-sections.txt'),
    );
    const before = categoriesFromAddressSummary(record).categories;
    const gc = parseEeHeapGc(
      transcriptBody('dotnet-dump/series-eeheap-gc-4-linux-net10.txt'),
    ).totalCommitted;
    expect(gc).to.equal(0x8a5000);
    const { categories: rows } = categoriesFromAddressSummary(record, { managedBytes: gc ?? 0 });
    expect(kb(rows, 'managed heap')).to.equal(0x8a5000 / 1024);
    expect(kb(rows, 'private data')).to.equal((kb(before, 'private data') ?? 0) - 0x8a5000 / 1024);
    const sum = (r: typeof rows) => r.reduce((n, x) => n + x.committedKb, 0);
    expect(sum(rows)).to.equal(sum(before));
    // MEM_MAPPED is 2 TB there (0x200033ce000), more than Other: the rest comes from <unknown>.
    expect(kb(rows, 'shareable')).to.equal(0x200033ce000 / 1024);
  });

  it('from !address -summary, old layout: RegionUsage names map to the same categories', () => {
    const { categories: rows, totals } = categoriesFromAddressSummary(
      parseAddressSummary(transcriptBody('misc/address-summary-old-layout-x86-dotnet-docs.txt')),
    );
    expect(kb(rows, 'heap')).to.equal(0x381000 / 1024);
    expect(kb(rows, 'stack')).to.equal(0x300000 / 1024);
    expect(kb(rows, 'image')).to.equal(0x1452000 / 1024);
    // MEM_MAPPED (0x69f000) out of RegionUsageIsVAD.
    expect(kb(rows, 'shareable')).to.equal(0x69f000 / 1024);
    // The busy total the old layout prints is what the categories add up to.
    expect(rows.reduce((n, r) => n + r.committedKb, 0)).to.equal(0x21db000 / 1024);
    expect(totals).to.deep.equal({
      committedKb: 0x1a58000 / 1024,
      reservedKb: 0x783000 / 1024,
      freeKb: 0x7de15000 / 1024,
    });
  });

  it('from an excerpt without the Type section: no shareable row is made up', () => {
    const { categories: rows, totals } = categoriesFromAddressSummary(
      parseAddressSummary(transcriptBody('misc/docs-address-summary-usage-excerpt.txt')),
    );
    expect(rows.map((r) => r.id)).to.deep.equal([
      'image',
      'mapped',
      'heap',
      'stack',
      'private data',
      'other',
    ]);
    expect(kb(rows, 'stack')).to.equal(0xc0000 / 1024);
    expect(totals).to.deep.equal({ freeKb: 0x85c87000 / 1024 });
  });

  it('from a dump memory list: heaps by the PEB list, stacks by the thread ranges, committed and reserved apart', () => {
    const regions = [
      region(0x10000, 0x10000, 0x4000, MEM_COMMIT, MEM_PRIVATE), // heap, committed
      region(0x14000, 0x10000, 0xc000, MEM_RESERVE, MEM_PRIVATE), // heap, reserved
      region(0x40000, 0x40000, 0x2000, MEM_RESERVE, MEM_PRIVATE), // stack reserve
      region(0x42000, 0x40000, 0x3000, MEM_COMMIT, MEM_PRIVATE), // stack, committed
      region(0x80000, 0x80000, 0x8000, MEM_COMMIT, MEM_PRIVATE), // VirtualAlloc
      region(0x400000, 0x400000, 0x5000, MEM_COMMIT, MEM_IMAGE),
    ];
    const { categories: rows, totals } = categorizeRegions(regions, {
      heaps: [0x10000n],
      stackAddresses: [0x43ff0n],
    });
    expect(rows.find((r) => r.id === 'heap')).to.deep.equal({
      id: 'heap',
      committedKb: 16,
      reservedKb: 64,
    });
    expect(kb(rows, 'stack')).to.equal(12);
    expect(kb(rows, 'private data')).to.equal(32);
    expect(kb(rows, 'image')).to.equal(20);
    expect(kb(rows, 'mapped')).to.equal(0);
    // A memory list has no file names: mapped files and sections cannot be told apart.
    expect(rows.map((r) => r.id)).to.deep.equal([
      'image',
      'mapped',
      'heap',
      'stack',
      'private data',
    ]);
    expect(totals).to.deep.equal({ committedKb: 80, reservedKb: 56, freeKb: 0 });
  });

  it('from a dump memory list with the GC`s regions known: their reservation is the managed heap', () => {
    // One GC reservation (as .NET 7+ regions make) with two committed regions, a free gap, and
    // a VirtualAlloc block.
    const regions = [
      region(0x1000000, 0x1000000, 0x10000, MEM_COMMIT),
      region(0x1010000, 0x1000000, 0x30000, MEM_RESERVE),
      region(0x1040000, 0x1000000, 0x20000, MEM_COMMIT),
      region(0x1060000, 0, 0x20000, MEM_FREE),
      region(0x2000000, 0x2000000, 0x8000, MEM_COMMIT),
    ];
    const inputs = { heaps: [], stackAddresses: [], managedAddresses: [0x1040028n] };
    const { categories: rows, totals } = categorizeRegions(regions, inputs);
    expect(rows.find((r) => r.id === 'managed heap')).to.deep.equal({
      id: 'managed heap',
      committedKb: 0x30000 / 1024,
      reservedKb: 0x60000 / 1024,
    });
    expect(kb(rows, 'private data')).to.equal(0x8000 / 1024);
    expect(totals.freeKb).to.equal(0x20000 / 1024);
    // An address in free space names nothing.
    const stray = categorizeRegions(regions, { ...inputs, managedAddresses: [0x1070000n] });
    expect(kb(stray.categories, 'managed heap')).to.equal(0);
  });

  it('from winedbg info maps rows: image, mapped and private data only, with the free total', () => {
    const { categories, totals } = categorizeListedRegions(
      parseWinedbgInfoMaps(
        readFileSync(
          join(REPO_ROOT, 'test', 'heap-trend', 'fixtures', 'winedbg-info-maps-leak-tick7.txt'),
          'utf8',
        ),
      ).regions,
    );
    expect(categories.map((c) => c.id)).to.deep.equal(['image', 'mapped', 'private data']);
    expect(totals.freeKb).to.be.greaterThan(0);
  });
});
