import { expect } from 'chai';
import { parseAddressSummary } from '../../../src/parsers/address-summary.js';
import {
  MEM_COMMIT,
  MEM_IMAGE,
  MEM_PRIVATE,
  MEM_RESERVE,
  type MemoryRegion,
} from '../../../src/minidump/streams/memory-info-list.js';
import {
  categoriesFromAddressSummary,
  categorizeRegions,
} from '../../../src/workflows/heap-trend/memory-categories.js';
import { transcriptBody } from '../../parsers/heap-sos-umdh-transcripts.js';

function kb(rows: { id: string; committedKb: number }[], id: string): number | undefined {
  return rows.find((r) => r.id === id)?.committedKb;
}

describe('memory by category', () => {
  it('from !address -summary, current layout: Heap, Stack, Image as printed, the rest private, Free left out', () => {
    const record = parseAddressSummary(
      transcriptBody('misc/address-summary-service-fabric-x64-three-sections.txt'),
    );
    const rows = categoriesFromAddressSummary(record);
    expect(kb(rows, 'heap')).to.equal(0x0b997000 / 1024);
    expect(kb(rows, 'stack')).to.equal(0x16880000 / 1024);
    expect(kb(rows, 'image')).to.equal(0x0e989000 / 1024);
    // <unknown> + Other + TEB + PEB.
    expect(kb(rows, 'private data')).to.equal((0xfeb0f000 + 0x1cd000 + 0xb8000 + 0x1000) / 1024);
    const busy = rows.reduce((n, r) => n + r.committedKb, 0);
    const free = record.usage.find((r) => r.name === 'Free')?.totalSize ?? 0;
    const all = record.usage.reduce((n, r) => n + r.totalSize, 0);
    expect(busy).to.equal((all - free) / 1024);
  });

  it('from !address -summary, old layout: RegionUsage names map to the same categories', () => {
    const rows = categoriesFromAddressSummary(
      parseAddressSummary(transcriptBody('misc/address-summary-old-layout-x86-dotnet-docs.txt')),
    );
    expect(kb(rows, 'heap')).to.equal(0x381000 / 1024);
    expect(kb(rows, 'stack')).to.equal(0x300000 / 1024);
    expect(kb(rows, 'image')).to.equal(0x1452000 / 1024);
    // The busy total the old layout prints is what the categories add up to.
    expect(rows.reduce((n, r) => n + r.committedKb, 0)).to.equal(0x21db000 / 1024);
  });

  it('from a dump memory list: heaps by the PEB list, stacks by the thread ranges, committed and reserved apart', () => {
    const region = (
      base: number,
      alloc: number,
      size: number,
      state: number,
      type: number,
    ): MemoryRegion => ({
      baseAddress: BigInt(base),
      allocationBase: BigInt(alloc),
      allocationProtect: 4,
      regionSize: BigInt(size),
      state,
      protect: 4,
      type,
    });
    const regions = [
      region(0x10000, 0x10000, 0x4000, MEM_COMMIT, MEM_PRIVATE), // heap, committed
      region(0x14000, 0x10000, 0xc000, MEM_RESERVE, MEM_PRIVATE), // heap, reserved
      region(0x40000, 0x40000, 0x2000, MEM_RESERVE, MEM_PRIVATE), // stack reserve
      region(0x42000, 0x40000, 0x3000, MEM_COMMIT, MEM_PRIVATE), // stack, committed
      region(0x80000, 0x80000, 0x8000, MEM_COMMIT, MEM_PRIVATE), // VirtualAlloc
      region(0x400000, 0x400000, 0x5000, MEM_COMMIT, MEM_IMAGE),
    ];
    const rows = categorizeRegions(regions, { heaps: [0x10000n], stackAddresses: [0x43ff0n] });
    expect(rows.find((r) => r.id === 'heap')).to.deep.equal({
      id: 'heap',
      committedKb: 16,
      reservedKb: 64,
    });
    expect(kb(rows, 'stack')).to.equal(12);
    expect(kb(rows, 'private data')).to.equal(32);
    expect(kb(rows, 'image')).to.equal(20);
    expect(kb(rows, 'mapped')).to.equal(0);
  });
});
