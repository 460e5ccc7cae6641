// Text from a byte stream, chunk by chunk, as `createReadStream(file, { encoding: 'utf8' })`
// gives it, but cheaper on ASCII: Node 20's UTF-8 decoder (string_decoder) cost 15 % of the
// CPU of `parse` on a 32 MB line (bench/parse-long-line.ts), and a chunk that is all ASCII reads
// the same as latin1, which is a plain copy. A chunk with any other byte, or one that follows
// the start of a multi-byte sequence, goes through the decoder, which joins sequences split
// between chunks and turns invalid bytes into U+FFFD as before.
import { isAscii } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';

export async function* utf8Chunks(bytes: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  /** The last chunk the decoder read may have ended inside a sequence it holds. */
  let holding = false;
  for await (const chunk of bytes) {
    if (!holding && isAscii(chunk)) {
      yield chunk.toString('latin1');
      continue;
    }
    holding = endsInsideSequence(chunk);
    const text = decoder.write(chunk);
    if (text.length > 0) yield text;
  }
  const last = decoder.end();
  if (last.length > 0) yield last;
}

/**
 * Whether `bytes` may end inside a UTF-8 sequence (RFC 3629 section 3): a lead byte in the last
 * three bytes whose sequence is longer than what follows it.
 */
function endsInsideSequence(bytes: Buffer): boolean {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back]!;
    if (byte < 0x80) return false;
    if (byte >= 0xc0) return (byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2) > back;
  }
  // Three continuation bytes at the end: which sequence they end cannot be told from here, so
  // the decoder reads the next chunk too.
  return true;
}
