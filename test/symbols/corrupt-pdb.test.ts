// Corrupt PDBs (truncated, absurd sizes, cyclic block lists, lying substreams) end in a clear
// BadSymbolsError or in "no name" with a warning: never a hang, a crash or a huge allocation.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { BufferSource, PdbFile } from '../../src/symbols/index.js';
import { blockListOffset, msfLayout } from '../helpers/msf-bytes.js';
import { pdbPathOf, pdbTargetReady } from '../helpers/pdb-targets.js';

/** Opens and looks up a few addresses; returns what happened, never throws. */
async function tryPdb(
  bytes: Buffer,
): Promise<{ error?: string; names: number; warnings: string[] }> {
  try {
    const pdb = await PdbFile.open(new BufferSource(bytes), 'bad.pdb');
    let names = 0;
    for (const rva of [0x1510, 0x1600, 0x1690, 0x1800]) {
      try {
        if ((await pdb.lookup(rva)) !== undefined) names++;
      } catch (error) {
        return { error: (error as Error).message, names, warnings: pdb.warnings };
      }
    }
    return { names, warnings: pdb.warnings };
  } catch (error) {
    expect((error as { code?: string }).code, String(error)).to.equal('BAD_SYMBOLS');
    return { error: (error as Error).message, names: 0, warnings: [] };
  }
}

describe('symbols: corrupt PDBs', function () {
  let good: Buffer;
  before(function () {
    if (!pdbTargetReady('symcrash')) this.skip();
    good = readFileSync(pdbPathOf('symcrash'));
  });

  const cases: [string, (b: Buffer) => Buffer, RegExp][] = [
    ['empty', () => Buffer.alloc(0), /only 0 bytes/],
    ['cut inside the superblock', (b) => b.subarray(0, 40), /only 40 bytes/],
    ['cut to one block', (b) => b.subarray(0, 4096), /do not fit|truncated/],
    ['cut in half', (b) => b.subarray(0, b.length >> 1), /do not fit|truncated/],
    ['not a PDB', () => Buffer.alloc(8192, 0x41), /no MSF 7.00 signature/],
    [
      'PDB 2.0',
      () => Buffer.from('Microsoft C/C++ program database 2.00\r\n\x1aJG\0\0'.padEnd(200, '\0')),
      /PDB 2.0/,
    ],
    ['block size 4097', (b) => patch(b, (c) => c.writeUInt32LE(4097, 32)), /block size 4097/],
    [
      'a 2 GB directory',
      (b) => patch(b, (c) => c.writeUInt32LE(0x7fffffff, 44)),
      /stream directory of/,
    ],
    [
      'block map past the end',
      (b) => patch(b, (c) => c.writeUInt32LE(0x00ffffff, 52)),
      /block map at block/,
    ],
    [
      'a stream of 2 GB',
      (b) => patch(b, (c) => c.writeUInt32LE(0x7ffffff0, msfLayout(c).dirOffset(4 + 3 * 4))),
      /stream 3 claims/,
    ],
    [
      'a million streams',
      (b) => patch(b, (c) => c.writeUInt32LE(1_000_000, msfLayout(c).dirOffset(0))),
      /claims 1000000 streams/,
    ],
    [
      'a stream listing one block twice (a cycle)',
      (b) =>
        patch(b, (c) => {
          const layout = msfLayout(c);
          const s = layout.streamBlocks.findIndex((list) => list.length >= 2);
          const at = blockListOffset(layout, s);
          c.writeUInt32LE(c.readUInt32LE(layout.dirOffset(at)), layout.dirOffset(at + 4));
        }),
      /twice \(a cycle\)/,
    ],
    [
      'a stream block past the end',
      (b) =>
        patch(b, (c) => {
          const layout = msfLayout(c);
          c.writeUInt32LE(0x0fffffff, layout.dirOffset(blockListOffset(layout, 3)));
        }),
      /names block/,
    ],
    [
      'DBI substream sizes beyond the stream',
      (b) => patch(b, (c) => c.writeInt32LE(0x7ffffff, msfLayout(c).streamOffset(3, 24))),
      /substream sizes/,
    ],
  ];

  for (const [name, corrupt, message] of cases) {
    it(`${name}: a clear error, quickly`, async () => {
      const before = process.memoryUsage().rss;
      const started = performance.now();
      const result = await tryPdb(corrupt(good));
      expect(result.error).to.match(message);
      expect(performance.now() - started).to.be.lessThan(2000);
      expect(process.memoryUsage().rss - before).to.be.lessThan(200 << 20);
    });
  }

  it('a module stream whose symbols lie about their size: a warning, other modules still named', async () => {
    const bytes = patch(good, (c) => {
      const layout = msfLayout(c);
      // Module info starts right after the 64-byte DBI header; symBytes is at +36 of an entry.
      c.writeUInt32LE(0x7ffffff0, layout.streamOffset(3, 64 + 36));
    });
    const result = await tryPdb(bytes);
    // Either the DBI check refuses the module list, or that one module is skipped with a warning.
    if (result.error === undefined) {
      expect(result.names).to.be.greaterThan(0);
    } else {
      expect(result.error).to.match(/claims .* bytes/);
    }
  });

  it('random bytes after a valid superblock never hang', async () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    for (let round = 0; round < 30; round++) {
      const bytes = Buffer.from(good);
      for (let i = 0; i < 64; i++) {
        const at = 56 + (((random() << 16) | (random() << 8) | random()) % (bytes.length - 56));
        bytes[at] = random();
      }
      const started = performance.now();
      await tryPdb(bytes);
      expect(performance.now() - started).to.be.lessThan(2000);
    }
  });
});

function patch(b: Buffer, edit: (copy: Buffer) => void): Buffer {
  const copy = Buffer.from(b);
  edit(copy);
  return copy;
}
