import { expect } from 'chai';
import { parseGcRoot } from '../../src/parsers/gc-root.js';
import { assertValid } from '../../src/report/schemas.js';
import { transcriptBody } from './heap-sos-umdh-transcripts.js';

// Windows SOS (.NET 5, WinDbg, published) and dotnet-dump 10 (recorded from our sessions program):
// the same roots and chains read from both layouts.
describe('parseGcRoot (!gcroot)', () => {
  it('Windows SOS: a stack root in Program.Main and the chain List`1 -> LeakObject[] -> LeakObject -> Byte[]', () => {
    const record = parseGcRoot(
      transcriptBody('misc/gcroot-byte-array-via-list-net5-x64-windbg.txt'),
    );
    assertValid('gcRoot', record);
    expect(record.warnings).to.deep.equal([]);
    expect(record.target).to.equal('0x236cc3e92b0');
    expect(record.uniqueRoots).to.equal(1);
    expect(record.roots).to.have.length(1);
    const root = record.roots[0];
    expect(root).to.include({ rootKind: 'stack', root: 'rbp-18', thread: '1a68' });
    expect(root?.frame).to.equal('ManagedMemoryLeak.Program.Main(System.String[])');
    expect(root?.chain.map((l) => l.typeName)).to.deep.equal([
      'System.Collections.Generic.List`1[[ManagedMemoryLeak.LeakObject, ManagedMemoryLeak]]',
      'ManagedMemoryLeak.LeakObject[]',
      'ManagedMemoryLeak.LeakObject',
      'System.Byte[]',
    ]);
    // The chain ends at the object asked about.
    expect(root?.chain.at(-1)?.address).to.equal(record.target);
  });

  it('Windows SOS: a thread root and a strong-handle root through Object[]', () => {
    const record = parseGcRoot(
      transcriptBody('misc/gcroot-list-thread-and-handle-net5-x64-windbg.txt'),
    );
    expect(record.warnings).to.deep.equal([]);
    expect(record.roots.map((r) => [r.rootKind, r.root, r.chain.length])).to.deep.equal([
      ['stack', 'rbp-18', 1],
      ['handle', 'strong handle', 2],
    ]);
    expect(record.roots[1]?.rootAddress).to.equal('0x236ca1f13e8');
  });

  it('dotnet-dump: the 16 KB payload is held by SessionState <- Entry[] <- Dictionary<Guid, SessionState> <- static', () => {
    const record = parseGcRoot(
      transcriptBody('dotnet-dump/gcroot-payload-byte-array-linux-net10.txt'),
      null,
    );
    assertValid('gcRoot', record);
    expect(record.warnings).to.deep.equal([]);
    expect(record.uniqueRoots).to.equal(2);
    const handle = record.roots.find((r) => r.rootKind === 'handle');
    expect(handle?.root).to.equal('strong handle');
    expect(handle?.chain.map((l) => l.typeName)).to.deep.equal([
      'System.Object[]',
      'System.Collections.Generic.Dictionary<System.Guid, CdbHarness.Targets.SessionState>',
      'System.Collections.Generic.Dictionary<System.Guid, CdbHarness.Targets.SessionState>+Entry[]',
      'CdbHarness.Targets.SessionState',
      'System.Byte[]',
    ]);
    // SOS's note after the dictionary is kept apart from the type name.
    expect(handle?.chain[1]?.note).to.match(/^static variable: /);
    const stack = record.roots.find((r) => r.rootKind === 'stack');
    expect(stack?.frame).to.equal('CdbHarness.Targets.Sessions.Run(Options)');
    expect(stack?.root).to.equal('rbp-108');
  });

  it('an address that is no object: the error, no roots, no warnings', () => {
    const record = parseGcRoot(
      transcriptBody('dotnet-dump/gcroot-no-root-linux-net10.txt'),
      'gcroot 0x10',
    );
    expect(record).to.include({ error: '10 is not a valid object', uniqueRoots: 0 });
    expect(record.roots).to.deep.equal([]);
    expect(record.warnings).to.deep.equal([]);
  });

  it('a chain link with no root above it is a warning, not a made-up root', () => {
    const record = parseGcRoot('          -> 7f4c0b000028     System.Object[] \n');
    expect(record.roots).to.deep.equal([]);
    expect(record.warnings).to.have.length(1);
  });
});
