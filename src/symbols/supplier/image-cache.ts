// Module images found on disk, shared by every dump of a batch: the same program and system DLLs
// appear in thousands of dumps, so each (path, time stamp, size) is opened and checked once and
// its reader kept open (and a miss remembered) until the batch closes the cache. Images inside a
// dump's memory belong to that dump and are never cached here.
import type { PositionedFileReader } from '../../minidump/file-reader.js';
import type { PeImage } from '../../stackwalk/pe-image.js';

export interface ImageCache {
  /** The image found for `key` before, or the search `find` starts now (one search per key). */
  get(key: string, find: () => Promise<PeImage | undefined>): Promise<PeImage | undefined>;
  /** Keeps `reader` open until close(). */
  own(reader: PositionedFileReader): void;
  /** Bytes read from cached image files so far. */
  readonly bytesRead: number;
  close(): Promise<void>;
}

/** At most this many images stay open (each holds a file descriptor and a small page cache). */
const MAX_ENTRIES = 256;

export function createImageCache(): ImageCache {
  const found = new Map<string, Promise<PeImage | undefined>>();
  const readers: PositionedFileReader[] = [];
  return {
    get(key, find) {
      let image = found.get(key);
      if (image === undefined) {
        image = find();
        // Past the cap, searches still work but are not remembered (readers are closed at the end).
        if (found.size < MAX_ENTRIES) found.set(key, image);
      }
      return image;
    },
    own(reader) {
      readers.push(reader);
    },
    // eslint-disable-next-line no-restricted-syntax -- made once per batch, not per dump
    get bytesRead() {
      return readers.reduce((sum, r) => sum + r.bytesRead, 0);
    },
    async close() {
      found.clear();
      await Promise.all(readers.splice(0).map((r) => r.close()));
    },
  };
}
