// Chunks of bytes to text (parse's input): the text equals Node's own UTF-8 decoding of the
// whole input however the bytes are cut, with multi-byte sequences split between chunks, ASCII
// chunks after them, and invalid bytes (U+FFFD, as the decoder gives them).
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { utf8Chunks } from '../../src/common/utf8-chunks.js';

async function decoded(chunks: Buffer[]): Promise<string> {
  let text = '';
  for await (const piece of utf8Chunks(Readable.from(chunks, { objectMode: true }))) text += piece;
  return text;
}

describe('utf8Chunks: bytes in chunks to text', () => {
  const samples = [
    Buffer.from('0:000> k\nntdll!RtlUserThreadStart+0x21\n'),
    Buffer.from('C:\\Users\\Jürgen\\数据\\😀.dmp\nplain ASCII after\n'),
    Buffer.concat([
      Buffer.from('bad '),
      Buffer.from([0xff, 0xc3, 0x41, 0xe2, 0x82]),
      Buffer.from('x'),
    ]),
    Buffer.concat([Buffer.from('ends inside '), Buffer.from([0xf0, 0x9f, 0x98])]),
  ];

  it('gives what one UTF-8 decoding of the whole input gives, at every cut', async () => {
    for (const bytes of samples) {
      for (let cut = 0; cut <= bytes.length; cut++) {
        const text = await decoded([bytes.subarray(0, cut), bytes.subarray(cut)]);
        expect(text, `cut at ${cut}`).to.equal(bytes.toString('utf8'));
      }
      const oneByOne = [...bytes].map((byte) => Buffer.from([byte]));
      expect(await decoded(oneByOne)).to.equal(bytes.toString('utf8'));
    }
  });
});
