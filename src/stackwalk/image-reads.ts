// Small reads of an image kept per image: unwind info and the code at a frame-0 instruction are
// read again for every dump of a batch that stops in the same function, and the images
// themselves are shared by the batch (symbols/supplier/image-cache.ts). Bounded per image; the
// images are bounded by their cache, and an image that goes takes its reads with it (WeakMap).
import type { Maybe } from './scan.js';
import type { ImageView } from './types.js';

/** Reads kept per image; past this, reads go to the image each time. */
const MAX_READS_PER_IMAGE = 1024;
/** Longest read kept (unwind codes are at most 255 slots: 4 + 512 + 12 bytes). */
const MAX_KEPT_LENGTH = 1024;

const READS = new WeakMap<ImageView, Map<number, Uint8Array | null>>();

/** image.readRva(rva, length), answered from what was read before when it can be. */
export function readRvaKept(
  image: ImageView,
  rva: number,
  length: number,
): Maybe<Uint8Array | null> {
  if (!(rva >= 0 && rva < 2 ** 32 && length > 0 && length <= MAX_KEPT_LENGTH)) {
    return image.readRva(rva, length);
  }
  let kept = READS.get(image);
  if (kept === undefined) {
    kept = new Map();
    READS.set(image, kept);
  }
  const key = rva * 2048 + length;
  const known = kept.get(key);
  if (known !== undefined) return known;
  const reads = kept;
  return image.readRva(rva, length).then((bytes) => {
    // A copy: a view would keep the reader's whole page alive.
    if (reads.size < MAX_READS_PER_IMAGE) reads.set(key, bytes === null ? null : bytes.slice());
    return bytes;
  });
}
