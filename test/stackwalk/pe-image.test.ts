// The walker's PE image: runtimeFunctionNow, the synchronous search of .pdata, answers what
// runtimeFunction answers once the blocks it visits were read, and nothing before; kept reads of
// an image (image-reads.ts) answer what the image answers. Over a real x64 image (the test
// program symcrash.exe, built by scripts/build-*.sh).
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRvaKept } from '../../src/stackwalk/image-reads.js';
import { PeImage } from '../../src/stackwalk/pe-image.js';
import type { ImageBytes } from '../../src/stackwalk/types.js';
import { REPO_ROOT } from '../helpers/wine.js';

const EXE = join(REPO_ROOT, 'build', 'targets', 'symcrash.exe');

function fileBytes(file: Buffer, reads: number[] = []): ImageBytes {
  return {
    layout: 'file',
    origin: 'test',
    read: (offset, length) => {
      reads.push(offset);
      return Promise.resolve(file.subarray(offset, Math.min(file.length, offset + length)));
    },
  };
}

describe('PE image (stackwalk/pe-image, image-reads)', () => {
  it('runtimeFunctionNow answers as runtimeFunction once its blocks are read, undefined before', async function () {
    if (!existsSync(EXE)) this.skip();
    const file = readFileSync(EXE);
    const slow = (await PeImage.open(fileBytes(file)))!;
    const fast = (await PeImage.open(fileBytes(file)))!;
    const count = Math.floor(fast.headers.exceptionDir.size / 12);
    expect(count).to.be.greaterThan(0);
    const text = fast.headers.sections.find((s) => s.executable)!;
    // Every 7th byte of the code, and the edges of the image.
    const probes = [0, 1, text.rva - 1, text.rva + text.virtualSize, fast.headers.sizeOfImage];
    for (let rva = text.rva; rva < text.rva + text.virtualSize; rva += 7) probes.push(rva);
    expect(fast.runtimeFunctionNow(probes[5]!)).to.equal(undefined);
    let found = 0;
    for (const rva of probes) {
      const want = await slow.runtimeFunction(rva);
      let now = fast.runtimeFunctionNow(rva);
      if (now === undefined) now = await fast.runtimeFunction(rva);
      expect(now, `rva 0x${rva.toString(16)}`).to.deep.equal(want);
      // Read once, the same search answers at once.
      expect(fast.runtimeFunctionNow(rva)).to.deep.equal(want);
      if (want !== null) found++;
    }
    expect(found).to.be.greaterThan(100);
  });

  it('readRvaKept reads an image once per place, and answers the same bytes after', async function () {
    if (!existsSync(EXE)) this.skip();
    const file = readFileSync(EXE);
    const reads: number[] = [];
    const image = (await PeImage.open(fileBytes(file, reads)))!;
    const text = image.headers.sections.find((s) => s.executable)!;
    const before = reads.length;
    const first = await readRvaKept(image, text.rva + 0x10, 64);
    const again = readRvaKept(image, text.rva + 0x10, 64);
    expect(again).to.not.be.instanceOf(Promise);
    expect(Array.from((again as Uint8Array | null) ?? [])).to.deep.equal(Array.from(first ?? []));
    expect(Array.from(first ?? [])).to.deep.equal(
      Array.from((await image.readRva(text.rva + 0x10, 64)) ?? []),
    );
    // Another length at the same place is another read.
    expect(await readRvaKept(image, text.rva + 0x10, 4)).to.have.length(4);
    expect(reads.length - before).to.equal(3);
    // Past the image: null, and kept as null.
    expect(await readRvaKept(image, 0x7fff_0000, 4)).to.equal(null);
    expect(readRvaKept(image, 0x7fff_0000, 4)).to.equal(null);
  });
});
