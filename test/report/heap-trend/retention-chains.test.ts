import { expect } from 'chai';
import { parseGcRoot } from '../../../src/parsers/gc-root.js';
import {
  chainLine,
  groupRetention,
  rootText,
} from '../../../src/report/heap-trend/retention-chains.js';
import { transcriptBody } from '../../parsers/heap-sos-umdh-transcripts.js';

// Real gcroot replies (dotnet-dump 10 and Windows SOS) grouped into retention chains.
describe('retention chains (grouped !gcroot)', () => {
  const payload = parseGcRoot(
    transcriptBody('dotnet-dump/gcroot-payload-byte-array-linux-net10.txt'),
  );
  const session = parseGcRoot(transcriptBody('dotnet-dump/gcroot-session-state-linux-net10.txt'));

  it('reads each chain from the object up to its root, SOS notes kept', () => {
    const groups = groupRetention([payload]);
    expect(groups).to.have.length(2);
    // The handle root (it outlives any call) comes before the stack root at equal counts.
    expect(groups[0]?.root).to.equal('strong handle');
    expect(groups[0]?.chain[0]).to.equal('System.Byte[]');
    expect(groups[0]?.chain[1]).to.equal('CdbHarness.Targets.SessionState');
    expect(groups[0]?.chain.at(-1)).to.equal('System.Object[]');
    expect(chainLine(groups[0]!)).to.match(
      /^System\.Byte\[\] ← CdbHarness\.Targets\.SessionState ← System\.Collections\.Generic\.Dictionary<System\.Guid, CdbHarness\.Targets\.SessionState>\+Entry\[\] ← System\.Collections\.Generic\.Dictionary<System\.Guid, CdbHarness\.Targets\.SessionState> \(static variable: [^)]*\) ← System\.Object\[\] ← strong handle$/,
    );
    expect(groups[1]?.root).to.match(
      /^stack of thread [0-9a-f]+: CdbHarness\.Targets\.Sessions\.Run\(Options\)$/,
    );
  });

  it('counts objects held the same way as one chain, whatever their addresses', () => {
    // The same reply twice stands for two objects held through the same chain.
    const groups = groupRetention([payload, payload, session]);
    expect(groups.map((g) => g.count)).to.deep.equal([2, 2, 1, 1]);
    expect(groups.reduce((n, g) => n + g.count, 0)).to.equal(6);
  });

  it('names a stack root by thread and frame (Windows SOS layout)', () => {
    const record = parseGcRoot(
      transcriptBody('misc/gcroot-byte-array-via-list-net5-x64-windbg.txt'),
    );
    const root = record.roots[0];
    expect(root === undefined ? '' : rootText(root)).to.equal(
      'stack of thread 1a68: ManagedMemoryLeak.Program.Main(System.String[])',
    );
    expect(groupRetention([record])[0]?.chain).to.deep.equal([
      'System.Byte[]',
      'ManagedMemoryLeak.LeakObject',
      'ManagedMemoryLeak.LeakObject[]',
      'System.Collections.Generic.List`1[[ManagedMemoryLeak.LeakObject, ManagedMemoryLeak]]',
    ]);
  });

  it('an object with no roots adds no chain', () => {
    const none = parseGcRoot(transcriptBody('dotnet-dump/gcroot-no-root-linux-net10.txt'));
    expect(groupRetention([none])).to.deep.equal([]);
  });
});
