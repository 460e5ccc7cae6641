import { expect } from 'chai';
import { midGcRefusal, readClrOutputs } from '../../../src/workflows/heap-trend/clr-readings.js';
import { spread } from '../../../src/workflows/heap-trend/retention.js';
import { transcriptBody } from '../../parsers/heap-sos-umdh-transcripts.js';

// Real dotnet-dump replies turned into sample series.
describe('managed sample readings (eeheap -gc, dumpheap -stat)', () => {
  it('one series per generation and area, committed KB summed over regions', () => {
    const reading = readClrOutputs(
      transcriptBody('dotnet-dump/eeheap-gc-leak-linux-net10.txt'),
      undefined,
    );
    const ids = reading.generations.map((g) => g.id).sort();
    expect(ids).to.include.members(['gen0', 'gen1', 'gen2', 'loh', 'poh', 'nongc']);
    // The leak's 40 x 256 KB arrays are large objects: the LOH holds at least 10 MB.
    const loh = reading.generations.find((g) => g.id === 'loh');
    expect(loh?.committedKb).to.be.at.least(40 * 256);
    expect(reading.warnings).to.deep.equal([]);
  });

  it('the segments layout (.NET 6 server GC) gives soh/loh/poh series', () => {
    const reading = readClrOutputs(
      transcriptBody('misc/eeheap-gc-server-12heaps-net6-x64.txt'),
      undefined,
    );
    expect(reading.generations.map((g) => g.id).sort()).to.deep.equal(['loh', 'poh', 'soh']);
  });

  it('one series per type with bytes as KB, the count, and the method table for retention', () => {
    const reading = readClrOutputs(
      undefined,
      transcriptBody('dotnet-dump/dumpheap-stat-sessions-linux-net10.txt'),
    );
    const sessions = reading.types.find((t) => t.id === 'CdbHarness.Targets.SessionState');
    expect(sessions?.count).to.equal(60);
    expect(sessions?.committedKb).to.equal((60 * 48) / 1024);
    expect(reading.methodTables.get('CdbHarness.Targets.SessionState')).to.match(/^0x[0-9a-f]+$/);
    const blob = reading.types.find((t) => t.id === 'System.Int64[]');
    expect(blob?.committedKb).to.be.at.least(4096);
  });

  it('samples objects spread over the list, first and last included', () => {
    expect(spread([1, 2, 3, 4, 5, 6, 7, 8, 9], 3)).to.deep.equal([1, 5, 9]);
    expect(spread([1, 2], 5)).to.deep.equal([1, 2]);
  });
});

// SOS's refusal to walk a heap dumped mid-GC (dotnet/diagnostics#3214). The C# SOS's line has no
// recording (none found in public text; 9 tries here found no mid-GC dump): it is SOS's own text,
// from dotnet/diagnostics src/Microsoft.Diagnostics.ExtensionCommands/DumpHeapCommand.cs
// (ParseArguments), as dotnet-dump prints a command's DiagnosticsException. The native SOS's
// words are replayed from the one real recording, the issue's own.
const MID_GC_LINE =
  'The GC heap is not in a valid state for traversal.  (Use -ignoreGCState to override.)';

describe('a dump taken mid-GC', () => {
  it('is recognised in SOS’s own words, and gives no types rather than an empty heap', () => {
    const reading = readClrOutputs(
      transcriptBody('dotnet-dump/eeheap-gc-leak-linux-net10.txt'),
      `${MID_GC_LINE}\n`,
    );
    expect(reading.refusal).to.equal(MID_GC_LINE);
    expect(reading.types).to.deep.equal([]);
    expect(
      midGcRefusal(transcriptBody('dotnet-dump/dumpheap-stat-sessions-linux-net10.txt')),
    ).to.equal(undefined);
  });

  it('is recognised in the native SOS’s words too, replayed from the recording of dotnet/diagnostics#3214', () => {
    // The one real recording of a mid-GC dump found (the description): the native SOS
    // warns, then walks anyway and stops at an invalid method table. Before: read as a heap
    // with no types.
    const reading = readClrOutputs(
      transcriptBody('dotnet-dump/eeheap-gc-leak-linux-net10.txt'),
      transcriptBody('misc/dumpheap-mid-gc-issue-3214-linux-netcore31.txt'),
    );
    expect(reading.refusal).to.equal(
      'The garbage collector data structures are not in a valid state for traversal.',
    );
    expect(reading.types).to.deep.equal([]);
    expect(reading.generations.length).to.be.greaterThan(0);
  });
});
