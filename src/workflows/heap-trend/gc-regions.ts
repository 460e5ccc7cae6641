// The GC's segments or regions in a Windows full dump, so that the builtin categories can move them
// from private data to the managed heap (memory-categories.ts): `eeheap -gc` through dotnet-dump on
// the same dump, one `begin` address per segment or region. Asked only for dumps whose module list
// has the CLR (coreclr.dll, clr.dll). dotnet-dump reads Windows dumps on Windows only: on Linux it
// answers `Analyzing Windows or MacOS dumps not supported when running on Linux` (measured with
// dotnet-dump 10.0.750501), so the first refusal is said once and the series goes on without the
// split (the GC heap then stays in private data, as the report's warning says).
import type { DumpToolOptions } from '../../engine/dialects/index.js';
import { getDialect } from '../../engine/dialects/index.js';
import { shortErrorMessage } from '../../errors.js';
import { parseEeHeapGc, type EeHeapGcRecord } from '../../parsers/ee-heap-gc.js';
import { addressOf } from '../../parsers/hex-token.js';

/** One address inside each GC segment or region `eeheap -gc` listed (its `begin`). */
export function gcAddressesOf(record: EeHeapGcRecord): bigint[] {
  return record.heaps.flatMap((heap) => heap.segments.map((segment) => addressOf(segment.begin)));
}

export interface GcRegionLookup {
  /** The GC's addresses in `dump`, or undefined when they cannot be had (said in `warnings`). */
  addressesOf(dump: string): Promise<bigint[] | undefined>;
  readonly warnings: string[];
}

/** A lookup for one series: after the first failure it stops asking. */
export function createGcRegionLookup(tool: DumpToolOptions): GcRegionLookup {
  const warnings: string[] = [];
  let failed = false;
  const give = (dump: string, why: string): undefined => {
    failed = true;
    warnings.push(
      `managed heap not split out of private data: dotnet-dump eeheap -gc on ${dump}: ${why}`,
    );
    return undefined;
  };
  return {
    warnings,
    async addressesOf(dump) {
      if (failed) return undefined;
      const sampling = getDialect('dotnet-dump').heapSampling;
      if (sampling?.style !== 'dump-per-sample') return give(dump, 'dotnet-dump cannot read dumps');
      let text: string | undefined;
      try {
        const batch = await sampling.analyze(dump, ['eeheap -gc'], tool);
        text = batch.outputs[0] ?? batch.stopped?.text;
      } catch (error) {
        return give(dump, shortErrorMessage(error));
      }
      const addresses = gcAddressesOf(parseEeHeapGc(text ?? ''));
      if (addresses.length > 0) return addresses;
      const said = (text ?? '')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.length > 0 && !l.startsWith('Loading core dump'));
      return give(dump, said[0] ?? 'no GC segments listed');
    },
  };
}
