// The reader's bounds (src/minidump/read-limits.ts): a stream is read as far as the file holds
// it, its parser's entry cap and MAX_STREAM_BYTES, whichever is least; and a module list that
// claims more entries than the cap costs only the cap's bytes (a synthetic dump, built byte by byte).
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMinidump } from '../../src/minidump/minidump.js';
import {
  MAX_STREAM_BYTES,
  MODULE_LIST_BYTES,
  streamReadLength,
} from '../../src/minidump/read-limits.js';
import { MAX_MODULES, MODULE_ENTRY_SIZE } from '../../src/minidump/streams/module-list.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { DumpBuilder, struct } from './helpers/dump-builder.js';

describe('minidump read limits (src/minidump/read-limits.ts)', () => {
  it('reads a stream only as far as the file holds it', () => {
    expect(streamReadLength({ rva: 900, size: 500 }, 1000)).to.deep.equal({
      length: 100,
      implausible: false,
    });
    expect(streamReadLength({ rva: 2000, size: 500 }, 1000).length).to.equal(0);
  });

  it("cuts a list at its parser's cap, and an implausible stream at MAX_STREAM_BYTES, saying so", () => {
    const huge = { rva: 0, size: MAX_STREAM_BYTES * 2 };
    expect(streamReadLength(huge, huge.size, 4096)).to.deep.equal({
      length: 4096,
      implausible: false,
    });
    expect(streamReadLength(huge, huge.size)).to.deep.equal({
      length: MAX_STREAM_BYTES,
      implausible: true,
    });
  });

  it('reads no more than MODULE_LIST_BYTES of a module list that claims more than the cap', async () => {
    const extra = 1000;
    const count = MAX_MODULES + extra;
    const b = new DumpBuilder(1);
    b.stream(
      4, // ModuleListStream
      struct(4 + count * MODULE_ENTRY_SIZE, (s) => {
        s.writeUInt32LE(count, 0);
        for (let i = 0; i < count; i++) {
          const at = 4 + i * MODULE_ENTRY_SIZE;
          s.writeBigUInt64LE(0x10000000n + BigInt(i) * 0x10000n, at); // BaseOfImage
          s.writeUInt32LE(0x10000, at + 8); // SizeOfImage
        }
      }),
    );
    const file = join(makeTempDir('read-limits'), 'many-modules.dmp');
    const bytes = b.build();
    writeFileSync(file, bytes);
    const dump = await openMinidump(file);
    try {
      const modules = await dump.modules();
      expect(modules.length).to.equal(MAX_MODULES);
      // The entries past the cap never come off the disk.
      expect(dump.bytesRead).to.be.lessThan(bytes.length - (extra * MODULE_ENTRY_SIZE) / 2);
      expect(MODULE_LIST_BYTES).to.be.lessThan(bytes.length);
      expect(dump.warnings().join('\n')).to.match(/module/i);
    } finally {
      await dump.close();
    }
  });
});
