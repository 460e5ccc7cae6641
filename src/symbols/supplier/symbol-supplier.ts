// The one supplier of the dump side: everything the processor asks of the world outside the dump
// (symbol files, module images) comes through one object built once per run from the options,
// on the model of rust-minidump's breakpad-symbols, whose `Symbolizer` wraps one
// `SymbolSupplier` that finds both symbol files (`locate_symbols`) and images
// (`locate_file(module, FileKind::Binary)`), and keeps what it found per module
// (https://github.com/rust-minidump/rust-minidump/blob/main/breakpad-symbols/src/lib.rs).
// It owns the symbol path and its store layout (symbol-locator.ts), the one path mapping of a
// recorded Windows path to this machine (local-paths.ts), the caches shared by the dumps of a
// batch (symbol files per module identity, the ones without symbols forgotten past 4,096:
// symbolizer.ts; images at most 256 open: image-cache.ts) and the download
// client (`fetch`, injected). processDump() takes it; inspect, analyze, watch, the queue worker
// and the benches build it through createSymbolSupplier() and close it when their run ends.
import type { Minidump } from '../../minidump/minidump.js';
import type { ImageLocator, ModuleRef } from '../../stackwalk/types.js';
import type { FetchLike } from '../download.js';
import type { RedirectPolicy } from '../redirect-policy.js';
import { chooseSymbolPath } from '../symbol-path.js';
import { createImageCache, type ImageCache } from './image-cache.js';
import { dumpImages, type DumpImages } from './image-locator.js';
import { localPaths } from './local-paths.js';
import type { SymbolFileProvider } from './symbol-provider.js';
import type { Symbolizer } from './symbolizer.js';

export interface SupplierOptions {
  /** The symbol path, cdb syntax (`--symbols`); else `_NT_SYMBOL_PATH` from `env`, as cdb reads it. */
  symbolPath?: string;
  /** False: images only, no symbol files (a debugger engine names the frames itself). */
  symbolFiles?: boolean;
  /** `--image-path` directories, flat or in store layout. */
  imagePaths?: readonly string[];
  /** Look for images at the paths the dump recorded (default true). */
  recordedPaths?: boolean;
  /**
   * The Wine prefix a recorded `C:\` path lives in (`--wine-prefix`): only the one named, never
   * $WINEPREFIX or ~/.wine (local-paths.ts).
   */
  winePrefix?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Where `srv*URL` and an empty `cache*` keep downloads (default ~/.cache/cdb-harness/symbols). */
  symbolCacheDir?: string;
  /** The download client for symbol servers (default the global fetch). */
  fetch?: FetchLike;
  /** Per download (default 60 s; `--symbol-timeout`). */
  downloadTimeoutMs?: number;
  /** Largest symbol file downloaded or expanded from a cabinet (`--symbol-max-size`). */
  maxDownloadBytes?: number;
  /** Which redirects a symbol download follows (default `https`; `--symbol-redirects`). */
  redirects?: RedirectPolicy;
  /** Largest .sym file read (default 512 MiB). */
  maxSymBytes?: number;
  /** Told once per symbol server given up on, with the reason. */
  onServerDown?: (server: string, reason: string) => void;
  /**
   * Keep images found on disk open across the dumps of the run (default true; at most
   * image-cache.ts's bound). False: each dump's images are closed with it.
   */
  cacheImages?: boolean;
  /** More places to ask for an image, after the others (each checked by time stamp and size). */
  locators?: readonly ImageLocator[];
}

/** What one dump is supplied with: its images, and symbol files whose failures are its own. */
export interface DumpSupply {
  images: DumpImages;
  /** The walker's symbol and unwind hooks (undefined without symbol files). */
  files?: SymbolFileProvider;
  /** Releases what this dump alone opened (cached images stay with the supplier). */
  close(): Promise<void>;
}

/** Symbol files, when the run has a symbol path: loaded on demand (they are most of the code). */
interface SymbolFiles {
  symbolizer: Symbolizer;
  provider: (symbolizer: Symbolizer) => SymbolFileProvider;
}

export class SymbolSupplier {
  readonly #options: SupplierOptions;
  readonly #prefix: string | undefined;
  readonly #files: SymbolFiles | undefined;
  readonly #images: ImageCache | undefined;

  /** Use createSymbolSupplier(); without `files` this supplier finds images only. */
  constructor(options: SupplierOptions = {}, files?: SymbolFiles) {
    this.#options = options;
    this.#prefix = options.winePrefix;
    this.#files = files;
    this.#images = options.cacheImages === false ? undefined : createImageCache();
  }

  /** The symbol files of the run (cached per module identity), or undefined without a path. */
  get symbolizer(): Symbolizer | undefined {
    return this.#files?.symbolizer;
  }

  /** True when frames can be named from symbol files (the signer is then the symbol-aware one). */
  get hasSymbolFiles(): boolean {
    return this.#files !== undefined;
  }

  /** Notes about the symbol path itself (unknown elements), for the first record's warnings. */
  get pathNotes(): readonly string[] {
    return this.#files?.symbolizer.pathNotes ?? [];
  }

  /** The images cache shared by the run's dumps (undefined with `cacheImages: false`). */
  get imageCache(): ImageCache | undefined {
    return this.#images;
  }

  /** Where a path the dump recorded may be on this machine (the one path mapping). */
  localPaths(recorded: string): string[] {
    return localPaths(recorded, this.#prefix);
  }

  /** The module's image files on the symbol path (rust-minidump's `FileKind::Binary`). */
  async imageFiles(module: ModuleRef): Promise<string[]> {
    return (await this.#files?.symbolizer.imageFiles(module)) ?? [];
  }

  /** Images and symbol files for one dump; close the supply when the dump is done. */
  forDump(dump: Minidump): DumpSupply {
    const options = this.#options;
    const symbolizer = this.#files?.symbolizer;
    const images = dumpImages(dump, {
      ...(options.imagePaths === undefined ? {} : { imagePaths: options.imagePaths }),
      ...(options.recordedPaths === undefined ? {} : { recordedPaths: options.recordedPaths }),
      ...(this.#prefix === undefined ? {} : { winePrefix: this.#prefix }),
      ...(options.locators === undefined ? {} : { locators: options.locators }),
      ...(this.#images === undefined ? {} : { cache: this.#images }),
      // Stores keep images too: the symbol path is asked after the folders above.
      ...(symbolizer === undefined ? {} : { symbolPath: symbolizer }),
    });
    // One provider per dump: its lookup failures belong to this dump's record only.
    const files =
      this.#files === undefined ? undefined : this.#files.provider(this.#files.symbolizer);
    return {
      images,
      ...(files === undefined ? {} : { files }),
      close: () => images.close(),
    };
  }

  /** Closes every file the run kept open (cached images, opened symbol files). */
  async close(): Promise<void> {
    await Promise.all([this.#images?.close(), this.#files?.symbolizer.close()]);
  }
}

/**
 * The one way to build the supplier from the CLI's or the library's options. The symbol readers
 * are loaded only when there is a symbol path (`inspect` without one starts faster).
 */
export async function createSymbolSupplier(options: SupplierOptions = {}): Promise<SymbolSupplier> {
  const env = options.env ?? process.env;
  const chosen =
    options.symbolFiles === false
      ? undefined
      : chooseSymbolPath(options.symbolPath, undefined, env);
  if (chosen === undefined) return new SymbolSupplier(options);
  const [{ Symbolizer, defaultSymbolCache }, { symbolFileProvider }] = await Promise.all([
    import('./symbolizer.js'),
    import('./symbol-provider.js'),
  ]);
  const symbolizer = new Symbolizer({
    symbolPath: chosen.text,
    defaultCache: options.symbolCacheDir ?? defaultSymbolCache(env),
    env,
    ...(options.winePrefix === undefined ? {} : { winePrefix: options.winePrefix }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.downloadTimeoutMs === undefined
      ? {}
      : { downloadTimeoutMs: options.downloadTimeoutMs }),
    ...(options.maxDownloadBytes === undefined
      ? {}
      : { maxDownloadBytes: options.maxDownloadBytes }),
    ...(options.maxSymBytes === undefined ? {} : { maxSymBytes: options.maxSymBytes }),
    ...(options.redirects === undefined ? {} : { redirects: options.redirects }),
    ...(options.onServerDown === undefined ? {} : { onServerDown: options.onServerDown }),
  });
  return new SymbolSupplier(options, { symbolizer, provider: symbolFileProvider });
}
