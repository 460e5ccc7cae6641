// What the ELF core check says about files that are not Linux cores, on real files: node's own
// executable (an ELF executable), a Windows minidump of the examples, text, an empty file and an
// ELF header cut short. Real cores (createdump's, dotnet-dump collect's, one cut short) are read in
// test/workflows/analyze/core-dump.test.ts.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { readElfCore } from '../../../../src/engine/dialects/common/elf-core.js';
import { REPO_ROOT } from '../../../helpers/wine.js';

function fromBytes(bytes: Buffer) {
  return readElfCore(
    (offset, length) => Promise.resolve(bytes.subarray(offset, offset + length)),
    bytes.length,
  );
}

describe('readElfCore', () => {
  it('an ELF executable (node itself) is named for what it is, not a core', async () => {
    const handle = await open(process.execPath, 'r');
    try {
      const { size } = await handle.stat();
      const reading = await readElfCore(async (offset, length) => {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, offset);
        return buffer.subarray(0, bytesRead);
      }, size);
      expect(reading).to.deep.include({ ok: false });
      expect(!reading.ok && reading.reason).to.match(
        /^an ELF (executable|shared object).*not a core dump/,
      );
    } finally {
      await handle.close();
    }
  });

  it('a Windows minidump says which engine reads it', async () => {
    const bytes = readFileSync(join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp'));
    const reading = await fromBytes(bytes);
    expect(!reading.ok && reading.reason).to.match(
      /^a Windows minidump \(MDMP\).*--engine builtin/,
    );
  });

  it('text, an empty file and a cut ELF header', async () => {
    expect(await fromBytes(Buffer.from('Loading core dump: x\n'))).to.deep.equal({
      ok: false,
      reason: 'not an ELF core dump (it starts with "Loading ")',
    });
    expect(await fromBytes(Buffer.alloc(0))).to.deep.equal({
      ok: false,
      reason: 'the file is empty',
    });
    const elf64 = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]);
    expect(await fromBytes(elf64)).to.deep.equal({
      ok: false,
      reason: 'an ELF header cut short (8 bytes of 64)',
    });
  });
});
