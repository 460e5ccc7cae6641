// Finds a module's image for the stack walker, in this order: (a) the dump's own memory (a full
// dump holds the mapped image), (b) the path the dump records, mapped to this machine (`Z:\x` is
// the unix path `/x` under Wine; `C:\…` is `<prefix>/drive_c/…` only when a prefix is named),
// (c) every `--image-path` directory, flat (`DIR/av.exe`) and in symbol-store layout
// (`DIR/av.exe/<TIMESTAMP><SIZE>/av.exe`,
// https://learn.microsoft.com/en-us/windows/win32/debug/using-symstore), (d) any ImageLocator
// handed in, (e) the symbol path (images kept in stores and on servers). A candidate counts only
// when its PE TimeDateStamp and SizeOfImage equal the module's, so a rebuilt file is never used.
import { codeIdOf } from '../../common/module-identity.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PositionedFileReader } from '../../minidump/file-reader.js';
import type { Minidump } from '../../minidump/minidump.js';
import { StreamType } from '../../minidump/stream-types.js';
import type { ImageCache } from './image-cache.js';
import { PeImage } from '../../stackwalk/pe-image.js';
import { safeFileName } from '../safe-name.js';
import { caseVariants, folderCandidates } from '../store-layout.js';
import { localPaths } from './local-paths.js';

export { localPaths } from './local-paths.js';
import type { ImageBytes, ImageLocator, ModuleImages, ModuleRef } from '../../stackwalk/types.js';
import { dict } from '../../common/dict.js';

export interface ImageLocatorOptions {
  /** `--image-path` directories. */
  imagePaths?: readonly string[];
  /** Look at the recorded paths (default true). */
  recordedPaths?: boolean;
  /** The Wine prefix whose drive_c a `C:\` path maps to (`--wine-prefix`; none: not looked up). */
  winePrefix?: string;
  /**
   * More places to ask, after the above (a symbol server's image download, a build cache): each
   * candidate is checked against the module's time stamp and size like the rest.
   */
  locators?: readonly ImageLocator[];
  /** Images found on disk, shared across the dumps of a batch (image-cache.ts). */
  cache?: ImageCache;
  /**
   * The symbol path, which keeps images too (`srv*` stores and servers serve them by name, time
   * stamp and size, as cdb fetches them): asked after the folders above (symbolizer.ts).
   */
  symbolPath?: { imageFiles(module: ModuleRef): Promise<string[]> };
}

/** Module images for one dump; `close()` releases every file it opened. */
export interface DumpImages extends ModuleImages {
  image(module: ModuleRef): Promise<PeImage | undefined>;
  /** Where each image looked up so far was found, by module name. */
  origins(): Record<string, string>;
  /** Bytes read from image files (not the dump) so far. */
  readonly fileBytesRead: number;
  close(): Promise<void>;
}

export function dumpImages(dump: Minidump, options: ImageLocatorOptions = {}): DumpImages {
  const readers: PositionedFileReader[] = [];
  const found = new Map<bigint, Promise<PeImage | undefined>>();
  const origins: Record<string, string> = dict();
  const prefix = options.winePrefix;

  const matches = async (bytes: ImageBytes, module: ModuleRef) => {
    const image = await PeImage.open(bytes).catch(() => null);
    if (image === null) return undefined;
    const { timestamp, sizeOfImage } = image.headers;
    // Dumps written from the process (mini dumps) may record a zero stamp; size must still agree.
    const sameStamp = module.timestamp === 0 || timestamp === module.timestamp;
    return sameStamp && sizeOfImage === module.size ? image : undefined;
  };

  const fromFile = async (path: string, module: ModuleRef, origin: string) => {
    if (!existsSync(path)) return undefined;
    let reader: PositionedFileReader;
    try {
      reader = await PositionedFileReader.open(path, { cacheBytes: 256 * 1024 });
    } catch {
      return undefined;
    }
    const bytes: ImageBytes = {
      layout: 'file',
      origin,
      path,
      read: (offset, length) => reader.read(offset, length),
    };
    const image = await matches(bytes, module);
    if (image === undefined) await reader.close();
    else if (options.cache) options.cache.own(reader);
    else readers.push(reader);
    return image;
  };

  // Mapped images are in the dump's memory only in full dumps (Memory64List) or dumps asked to
  // keep code (MiniDumpWithCodeSegs 0x2000, FullMemory 0x2); elsewhere looking would only cost
  // building the dump's address map.
  const mayHoldImages =
    dump.stream(StreamType.Memory64List) !== undefined || (dump.header.flags & 0x2002n) !== 0n;

  const locate = async (module: ModuleRef): Promise<PeImage | undefined> => {
    const inDump =
      mayHoldImages &&
      (await matches(
        {
          layout: 'mapped',
          origin: 'dump',
          read: (offset, length) => dump.readMemory(module.base + BigInt(offset), length),
        },
        module,
      ));
    if (inDump) return inDump;
    const onDisk = () => fromDisk(module);
    if (!options.cache) return onDisk();
    return options.cache.get(`${module.path}|${module.timestamp}|${module.size}`, onDisk);
  };

  const fromDisk = async (module: ModuleRef): Promise<PeImage | undefined> => {
    if (options.recordedPaths !== false) {
      for (const path of localPaths(module.path, prefix)) {
        const image = await fromFile(path, module, 'recorded-path');
        if (image) return image;
      }
    }
    // The dump chose the name: only a safe single segment is joined to an --image-path folder.
    const safe = safeFileName(module.name, 'image name');
    const name = safe.ok ? safe.name : '';
    // The same store layout as symbol files: flat, then NAME/TIMESTAMPSIZE/NAME (store-layout.ts).
    const candidates = safe.ok
      ? folderCandidates(
          { name, id: codeIdOf(module.timestamp, module.size) },
          { twoTier: false, image: true },
        ).filter((c) => c.format === 'image')
      : [];
    for (const dir of safe.ok ? (options.imagePaths ?? []) : []) {
      for (const candidate of candidates) {
        for (const relative of caseVariants(candidate.relative)) {
          const image = await fromFile(join(dir, relative), module, 'image-path');
          if (image) return image;
        }
      }
    }
    for (const path of (await options.symbolPath?.imageFiles(module).catch(() => [])) ?? []) {
      const image = await fromFile(path, module, 'symbol-path');
      if (image) return image;
    }
    for (const locator of options.locators ?? []) {
      const bytes = await locator.locate(module).catch(() => undefined);
      const image = bytes === undefined ? undefined : await matches(bytes, module);
      if (image) return image;
    }
    return undefined;
  };

  const image = (module: ModuleRef): Promise<PeImage | undefined> => {
    let image = found.get(module.base);
    if (!image) {
      image = locate(module).then((located) => {
        origins[module.name] = located ? (located.path ?? located.origin) : 'not found';
        return located;
      });
      found.set(module.base, image);
    }
    return image;
  };
  return new DumpImageSet(readers, image, () => ({ ...origins }));
}

/**
 * One dump's images, as dumpImages() hands them out. A class for its getter: V8 makes a getter
 * of an object literal with the closure it is (runtime-defined accessors), and that closure kept
 * this dump's whole locator context, the dump included, through every scavenge until a full GC:
 * in a batch each dump's streams and module list were copied and promoted (measured with
 * `node --trace-gc-nvp`: a factory returning `{ get n() { return m.size } }` kept 46% of what it
 * allocated alive through each scavenge, with or without the optimising compiler). A prototype
 * getter makes no closure.
 */
class DumpImageSet implements DumpImages {
  readonly #readers: PositionedFileReader[];
  readonly image: DumpImages['image'];
  readonly origins: DumpImages['origins'];

  constructor(
    readers: PositionedFileReader[],
    image: DumpImages['image'],
    origins: DumpImages['origins'],
  ) {
    this.#readers = readers;
    this.image = image;
    this.origins = origins;
  }

  get fileBytesRead(): number {
    return this.#readers.reduce((sum, r) => sum + r.bytesRead, 0);
  }

  async close(): Promise<void> {
    await Promise.all(this.#readers.splice(0).map((r) => r.close()));
  }
}
