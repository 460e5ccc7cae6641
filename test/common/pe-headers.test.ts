// The one PE header reader: the walker's image view and the supplier's debug-id lookup read the
// same headers of a real image (the test program symcrash.exe, built by scripts/build-*.sh), and
// anything else gets the reason it is not a PE image.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePeHeaders, readPeHeaders } from '../../src/common/pe-headers.js';
import { PeImage } from '../../src/stackwalk/pe-image.js';
import { BufferSource } from '../../src/symbols/byte-source.js';
import { readImageIdentity } from '../../src/symbols/pe-codeview.js';
import { REPO_ROOT } from '../helpers/wine.js';

const EXE = join(REPO_ROOT, 'build', 'targets', 'symcrash.exe');

function bytesOf(buffer: Buffer) {
  return {
    read: (offset: number, length: number) =>
      Promise.resolve(buffer.subarray(offset, Math.min(buffer.length, offset + length))),
  };
}

describe('PE headers (src/common/pe-headers.ts)', () => {
  it('gives the walker and the supplier the same stamp, size and code id of one image', async function () {
    if (!existsSync(EXE)) this.skip();
    const file = readFileSync(EXE);
    const headers = await readPeHeaders(bytesOf(file));
    const identity = await readImageIdentity(new BufferSource(file), 'symcrash.exe');
    const image = await PeImage.open({ layout: 'file', origin: 'test', ...bytesOf(file) });
    expect(headers?.codeId).to.equal(identity.codeId);
    expect(image?.headers.timestamp).to.equal(identity.timeDateStamp);
    expect(image?.headers.sizeOfImage).to.equal(identity.sizeOfImage);
    // The symbol-store key: the stamp as 8 upper-case hex digits, then the size in hex.
    expect(identity.codeId).to.equal(
      identity.timeDateStamp.toString(16).toUpperCase().padStart(8, '0') +
        identity.sizeOfImage.toString(16),
    );
    expect(headers?.sections.some((s) => s.executable)).to.equal(true);
    expect(identity.codeView?.pdbName).to.equal('symcrash.pdb');
  });

  it('says why bytes are not a PE image', async () => {
    expect(await parsePeHeaders(bytesOf(Buffer.from('PK\x03\x04 a zip')))).to.equal('no MZ header');
    const mz = Buffer.alloc(256);
    mz.write('MZ', 0, 'latin1');
    mz.writeUInt32LE(0x80, 60);
    expect(await parsePeHeaders(bytesOf(mz))).to.equal('no PE signature');
    mz.write('PE\0\0', 0x80, 'latin1');
    mz.writeUInt16LE(0x1234, 0x80 + 24);
    expect(await parsePeHeaders(bytesOf(mz))).to.equal('optional header magic 0x1234');
    expect(await readPeHeaders(bytesOf(mz))).to.equal(null);
  });
});
