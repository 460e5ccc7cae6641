import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BadDumpError } from '../../../../src/errors.js';
import { readGcDump, readNode } from '../../../../src/engine/dialects/dotnet-gcdump/gcdump-file.js';
import { REPO_ROOT } from '../../../helpers/wine.js';

const FILE = join(REPO_ROOT, 'test', 'fixtures', 'gcdump', 'sessions-1.gcdump');

describe('dotnet-gcdump: reading a .gcdump file', () => {
  it('reads the graph: types, nodes, addresses and the roots node', () => {
    const dump = readGcDump(readFileSync(FILE), 'sessions-1.gcdump');
    expect(dump.nodeCount).to.be.greaterThan(100);
    expect(dump.addresses.length).to.equal(dump.nodeCount);
    expect(dump.types[0]?.name).to.equal('UNDEFINED');
    const root = readNode(dump, dump.rootIndex);
    expect(dump.types[root.type]?.name).to.equal('[.NET Roots]');
    const groups = root.children.map((c) => dump.types[readNode(dump, c).type]?.name);
    expect(groups).to.include.members(['[static vars]', '[local vars]', '[other roots]']);
    expect(dump.is64Bit).to.equal(true);
    expect(dump.countMultiplier).to.equal(1);
  });

  it('refuses what is not a gcdump, and every cut of a real one, with the file named', () => {
    const bytes = readFileSync(FILE);
    expect(() => readGcDump(Buffer.from('MDMP not a gcdump'), 'x.gcdump'))
      .to.throw(BadDumpError)
      .with.property('message')
      .match(/x\.gcdump is not a readable \.gcdump/);
    expect(() => readGcDump(Buffer.alloc(0), 'empty.gcdump')).to.throw(BadDumpError, /ends early/);
    // Cut anywhere before the process fields: a clear error, never a crash or a partial graph.
    for (const at of [4, 30, 100, 1000, Math.floor(bytes.length / 2), bytes.length - 60]) {
      expect(() => readGcDump(bytes.subarray(0, at), 'cut.gcdump'), `cut at ${at}`).to.throw(
        BadDumpError,
      );
    }
  });

  it('refuses a count larger than the file', () => {
    const bytes = Buffer.from(readFileSync(FILE));
    // The type count follows the header, two type objects, the total size and the root index.
    const at = bytes.indexOf(Buffer.from('Graphs.MemoryGraph')) + 'Graphs.MemoryGraph'.length + 1;
    bytes.writeInt32LE(0x7fffffff, at + 12);
    expect(() => readGcDump(bytes, 'big.gcdump')).to.throw(BadDumpError, /type count/);
  });
});
