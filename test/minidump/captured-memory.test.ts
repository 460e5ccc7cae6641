// The captured memory of a dump (src/minidump/captured-memory.ts): MemoryList and Memory64List
// merged into one map, the MemoryList winning where they overlap (with a warning), and bytes a
// cut file no longer holds counted past its end. Synthetic dumps, built byte by byte.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMinidump } from '../../src/minidump/minidump.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';
import { DumpBuilder, struct } from './helpers/dump-builder.js';

const MEMORY_LIST = 5;
const MEMORY64_LIST = 9;

/** A MemoryList range at 0x1000 (16 bytes of 0xaa) and a Memory64List range at 0x1008. */
function overlapping(cut: number): Buffer {
  const b = new DumpBuilder(2);
  const small = b.append(Buffer.alloc(16, 0xaa));
  b.stream(
    MEMORY_LIST,
    struct(4 + 16, (l) => {
      l.writeUInt32LE(1, 0);
      l.writeBigUInt64LE(0x1000n, 4);
      l.writeUInt32LE(16, 12);
      l.writeUInt32LE(small, 16);
    }),
  );
  const header = 16 + 16;
  const aligned = b.end + ((4 - (b.end % 4)) % 4) + header;
  b.stream(
    MEMORY64_LIST,
    struct(header, (l) => {
      l.writeBigUInt64LE(1n, 0);
      l.writeBigUInt64LE(BigInt(aligned), 8);
      l.writeBigUInt64LE(0x1008n, 16);
      l.writeBigUInt64LE(32n, 24);
    }),
  );
  b.append(Buffer.alloc(32, 0xbb));
  const bytes = b.build();
  return bytes.subarray(0, bytes.length - cut);
}

async function opened(bytes: Buffer) {
  const file = join(makeTempDir('captured-memory'), 'memory.dmp');
  writeFileSync(file, bytes);
  return openMinidump(file);
}

describe('captured memory (src/minidump/captured-memory.ts)', () => {
  it('merges both lists, the MemoryList first where they overlap, and says so', async () => {
    const dump = await opened(overlapping(0));
    try {
      const summary = await dump.memorySummary();
      expect(summary.sources).to.deep.equal(['MemoryList', 'Memory64List']);
      expect(summary.memory64DeclaredBytes).to.equal(32);
      expect(summary.missingBytes).to.equal(0);
      const bytes = await dump.readMemory(0x1000n, 0x28);
      expect(bytes?.[0x0f]).to.equal(0xaa); // the MemoryList's capture of 0x100f
      expect(bytes?.[0x10]).to.equal(0xbb); // past it, the Memory64List's
      expect(bytes?.length).to.equal(0x28);
      expect(dump.warnings().join('\n')).to.match(/overlap earlier ones \(8 bytes\)/);
    } finally {
      await dump.close();
    }
  });

  it('counts the captured bytes a cut file no longer holds past its end', async () => {
    const dump = await opened(overlapping(12));
    try {
      const summary = await dump.memorySummary();
      expect(summary.missingBytes).to.equal(12);
      expect(dump.pastEnd().get('bytes of captured memory')).to.equal(12);
    } finally {
      await dump.close();
    }
  });

  it('dumps read side by side keep their own maps (a MemoryList is parsed in a reused work space)', async () => {
    // Two Wine minidumps of the repository's examples (4,619 and 5,298 ranges), opened together
    // and their maps built in one Promise.all, against each built alone.
    const names = ['av-write-a.dmp', 'cpp-throw.dmp'];
    const paths = names.map((n) => join(REPO_ROOT, 'examples', 'dumps', n));
    const alone = [];
    for (const path of paths) {
      const dump = await openMinidump(path);
      try {
        alone.push(await dump.memoryRanges());
      } finally {
        await dump.close();
      }
    }
    const dumps = await Promise.all(paths.map((p) => openMinidump(p)));
    try {
      const together = await Promise.all(dumps.map((d) => d.memoryRanges()));
      expect(together[0]).to.have.length(4619);
      expect(together[1]).to.have.length(5298);
      expect(together).to.deep.equal(alone);
    } finally {
      await Promise.all(dumps.map((d) => d.close()));
    }
  });
});
