// The GC's addresses from a real `eeheap -gc` (dotnet-dump, .NET 10 regions) and what the builtin
// categories make of them: the memory holding each region is the managed heap.
import { expect } from 'chai';
import { parseEeHeapGc } from '../../../src/parsers/ee-heap-gc.js';
import {
  MEM_COMMIT,
  MEM_PRIVATE,
  MEM_RESERVE,
  type MemoryRegion,
} from '../../../src/minidump/streams/memory-info-list.js';
import { gcAddressesOf } from '../../../src/workflows/heap-trend/gc-regions.js';
import { categorizeRegions } from '../../../src/workflows/heap-trend/memory-categories.js';
import { transcriptBody } from '../../parsers/heap-sos-umdh-transcripts.js';

describe('GC regions for the managed-heap category', () => {
  const record = parseEeHeapGc(transcriptBody('dotnet-dump/series-eeheap-gc-4-linux-net10.txt'));

  it('one address per segment or region listed: every area, in the order printed', () => {
    expect(gcAddressesOf(record).map((a) => `0x${a.toString(16)}`)).to.deep.equal([
      '0x7efab9800028', // gen0
      '0x7efabbc00028',
      '0x7efab9400028', // gen1
      '0x7efab9000028', // gen2
      '0x7f0681c00008', // NonGC
      '0x7efab9c00028', // LOH
      '0x7efab7000028', // POH
    ]);
  });

  it('the reservation holding them is the managed heap; other private memory stays private data', () => {
    // The regions' own range as a dump's memory list would show it: one reservation from the
    // POH's region to the end of the gen0 regions, part committed.
    const region = (base: bigint, size: bigint, state: number): MemoryRegion => ({
      baseAddress: base,
      allocationBase: 0x7efab7000000n,
      allocationProtect: 4,
      regionSize: size,
      state,
      protect: 4,
      type: MEM_PRIVATE,
    });
    const regions = [
      region(0x7efab7000000n, 0x2800000n, MEM_COMMIT),
      region(0x7efab9800000n, 0x2800000n, MEM_RESERVE),
      { ...region(0x10000000n, 0x100000n, MEM_COMMIT), allocationBase: 0x10000000n },
    ];
    const { categories } = categorizeRegions(regions, {
      heaps: [],
      stackAddresses: [],
      managedAddresses: gcAddressesOf(record),
    });
    expect(categories.find((c) => c.id === 'managed heap')).to.deep.equal({
      id: 'managed heap',
      committedKb: 0x2800000 / 1024,
      reservedKb: 0x5000000 / 1024,
    });
    expect(categories.find((c) => c.id === 'private data')?.committedKb).to.equal(0x100000 / 1024);
  });
});
