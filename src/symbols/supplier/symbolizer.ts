// Symbols for the modules of many dumps, through one symbol path: finds each module's PDB or
// Breakpad .sym (by the dump's CodeView record, or the image's own debug directory when the dump
// has none, as Wine's dumps do), checks it is the right build (GUID + age), opens it, and keeps
// it for every later dump of the batch. A module with no usable symbols gets a reason, once, and
// never an exception: one bad file or dead server never stops a batch.
import { moduleCodeId } from '../../common/module-identity.js';
import { rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AbortedError, BadSymbolsError, IoError, shortErrorMessage } from '../../errors.js';
import { PositionedFileReader } from '../../minidump/file-reader.js';
import {
  BreakpadSymbols,
  PdbFile,
  parseSymbolPath,
  safeKey,
  type ModuleSymbolFile,
  type SymbolKey,
  type SymbolLookup,
} from '../index.js';
import { localPaths } from './local-paths.js';
import { imagePdbIdentity } from './image-pdb-identity.js';
import { isFile } from './local-store-files.js';
import { moduleIdentityKey, type SymbolModule } from './module-identity-key.js';
import { OpenSymbolFiles } from './open-symbol-files.js';
import { SymbolLocator, type Located, type LocatorOptions } from './symbol-locator.js';

export type ModuleSymbolsState =
  | {
      ok: true;
      file: ModuleSymbolFile;
      format: 'pdb' | 'breakpad';
      origin: string;
      pdbName: string;
    }
  | {
      ok: false;
      reason: string;
      /** Symbol files found but unreadable (corrupt, truncated): worth a warning, not just a reason. */
      badFiles?: string[];
    };

export interface SymbolizerOptions extends LocatorOptions {
  /** The symbol path text, cdb syntax. */
  symbolPath: string;
  /** Where `srv*URL` and an empty `cache*` keep downloads (default ~/.cache/cdb-harness/symbols). */
  defaultCache?: string;
  /** Largest .sym file read into memory (default 512 MiB). */
  maxSymBytes?: number;
  /**
   * Module builds whose answer is remembered (default 4,096): past it, the oldest answers that
   * hold no open file (modules without symbols) are forgotten, and asked again if seen again.
   */
  maxRemembered?: number;
  /**
   * Symbol files kept open across the batch, by page-cache budget (default 64 MiB: 16 PDBs with
   * their 4 MiB page caches, or 64 .sym files with 1 MiB). Past it the least recently used file
   * that no lookup is reading is closed and its module forgotten (opened again if met again), so
   * a batch over thousands of different builds holds neither thousands of descriptors nor their
   * caches.
   */
  maxOpenBytes?: number;
  /** The Wine prefix recorded `C:\` paths live in, only when named (local-paths.ts). */
  winePrefix?: string;
  env?: NodeJS.ProcessEnv;
}

const DEFAULT_MAX_SYM = 512 << 20;
const DEFAULT_MAX_REMEMBERED = 4096;
const DEFAULT_MAX_OPEN_BYTES = 64 << 20;
const PDB_CACHE_BYTES = 4 << 20;
const SYM_CACHE_BYTES = 1 << 20;

/** The loaded side of ModuleSymbolsState. */
export type LoadedSymbols = Extract<ModuleSymbolsState, { ok: true }>;

export function defaultSymbolCache(env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache');
  return join(base, 'cdb-harness', 'symbols');
}

export class Symbolizer {
  readonly #locator: SymbolLocator;
  readonly #options: SymbolizerOptions;
  readonly #modules = new Map<string, Promise<ModuleSymbolsState>>();
  /** The answers of #modules that have settled, by the same key (answerNow, settledNow). */
  readonly #settled = new Map<string, ModuleSymbolsState>();
  /** Counts answers forgotten (a file closed by the budget, an answer past the bound). */
  #generation = 0;
  /** Keys of #modules whose answer holds no open file: the ones that may be forgotten. */
  readonly #noFile = new Set<string>();
  /** Image files found on the symbol path, by module identity (one search per batch). */
  readonly #images = new Map<string, Promise<string[]>>();
  /** The batch's open symbol files, within maxOpenBytes (an evicted module is loaded again). */
  readonly #openFiles: OpenSymbolFiles;
  /** Notes about the path itself (unknown elements), for the first record's warnings. */
  readonly pathNotes: string[];

  constructor(options: SymbolizerOptions) {
    const parsed = parseSymbolPath(
      options.symbolPath,
      options.defaultCache ?? defaultSymbolCache(),
    );
    this.pathNotes = parsed.notes;
    this.#options = options;
    this.#locator = new SymbolLocator(parsed.elements, options);
    this.#openFiles = new OpenSymbolFiles(options.maxOpenBytes ?? DEFAULT_MAX_OPEN_BYTES, (key) =>
      this.#forget(key),
    );
  }

  /** The symbols of one module, found and opened once per batch (keyed by the build's identity). */
  forModule(module: SymbolModule): Promise<ModuleSymbolsState> {
    const key = moduleIdentityKey(module);
    let state = this.#modules.get(key);
    if (!state) {
      state = this.#load(module, key).catch((error: unknown) => {
        if (error instanceof AbortedError) throw error;
        return { ok: false, reason: shortErrorMessage(error) };
      });
      this.#modules.set(key, state);
      const loading = state;
      void loading.then(
        (settled) => {
          if (this.#modules.get(key) === loading) this.#settled.set(key, settled);
          if (!settled.ok && this.#modules.get(key) !== undefined) this.#noFile.add(key);
        },
        () => undefined,
      );
      this.#forgetPastBound();
    }
    return state;
  }

  /**
   * The module's answer when it has settled (what forModule() would give), without a promise;
   * undefined when only forModule() can tell.
   */
  answerNow(module: SymbolModule): ModuleSymbolsState | undefined {
    return this.#settled.get(moduleIdentityKey(module));
  }

  /**
   * The settled answer for a read that ends before anything else runs (a lookup answered from
   * records already in memory): a loaded file is marked most recently used, as use() does, and
   * stays open, for nothing can close it while the read runs. Undefined when the answer has not
   * settled, or when files past the budget wait to close (use() then closes them).
   */
  settledNow(module: SymbolModule): ModuleSymbolsState | undefined {
    const key = moduleIdentityKey(module);
    const state = this.#settled.get(key);
    if (state === undefined || !this.#openFiles.touch(key)) return undefined;
    return state;
  }

  /** False while files past the budget wait to close: settledNow() answers nothing then. */
  get readsNow(): boolean {
    return this.#openFiles.withinBudget;
  }

  /**
   * Changes whenever an answer is forgotten (its file closed to make room, or past the bound): a
   * caller keeping answers from settledNow() drops them then.
   */
  get generation(): number {
    return this.#generation;
  }

  /** Name for an address inside a module (rva = address − base), or why there is none. */
  async lookup(module: SymbolModule, rva: number): Promise<SymbolLookup | { missing: string }> {
    const state = await this.forModule(module);
    if (!state.ok) return { missing: state.reason };
    const hit = await this.use(module, (loaded) => loaded.file.lookup(rva));
    return hit ?? { missing: `${state.pdbName} has no symbol at +0x${rva.toString(16)}` };
  }

  /**
   * Runs `read` on the module's loaded symbol file, which stays open until `read` settles (the
   * budget of open files never closes a file a read waits for or is reading). Undefined when the
   * module has none.
   */
  async use<T>(
    module: SymbolModule,
    read: (state: LoadedSymbols) => Promise<T> | T,
  ): Promise<T | undefined> {
    const key = moduleIdentityKey(module);
    this.#openFiles.hold(key);
    try {
      const state = await this.forModule(module);
      return state.ok ? await read(state) : undefined;
    } finally {
      await this.#openFiles.release(key);
    }
  }

  /** Symbol files open now (each one module build's PDB or .sym). */
  get openFiles(): number {
    return this.#openFiles.size;
  }

  get #bound(): number {
    return this.#options.maxRemembered ?? DEFAULT_MAX_REMEMBERED;
  }

  /** Keeps the remembered answers within the bound, oldest answers without a file going first. */
  #forgetPastBound(): void {
    if (this.#modules.size <= this.#bound) return;
    for (const key of this.#noFile) {
      this.#noFile.delete(key);
      this.#forget(key);
      if (this.#modules.size <= this.#bound) return;
    }
  }

  #forget(key: string): void {
    this.#modules.delete(key);
    this.#settled.delete(key);
    this.#generation++;
  }

  async close(): Promise<void> {
    await this.#openFiles.closeAll();
  }

  async #load(module: SymbolModule, moduleKey: string): Promise<ModuleSymbolsState> {
    let pdbName = module.codeView?.pdbName;
    let debugId = module.codeView?.debugId;
    const notes: string[] = [];
    if (pdbName === undefined || debugId === undefined) {
      const fromImage = await this.#identityFromImage(module, notes);
      pdbName = fromImage?.pdbName;
      debugId = fromImage?.debugId;
    }
    if (pdbName === undefined || debugId === undefined) {
      return { ok: false, reason: `no PDB identity: ${notes.join('; ')}` };
    }
    // The dump chose these names: refused unless each is one safe path segment (safe-name.ts).
    const safe = safeKey({ name: pdbName, id: debugId }, { name: 'PDB name', id: 'debug id' });
    if (!safe.ok) return { ok: false, reason: safe.reason };
    const key: SymbolKey = safe.key;
    const extension = /\.([a-z0-9]+)$/i.exec(module.name)?.[1];
    const located = await this.#locator.locate(key, {
      all: true,
      imageSize: module.size,
      ...(extension === undefined ? {} : { imageExtension: extension }),
    });
    const problems = [...located.problems];
    const badFiles: string[] = [];
    for (const candidate of located.found) {
      try {
        const file = await this.#open(candidate, key, moduleKey);
        if (file) {
          return { ok: true, file, format: file.format, origin: candidate.from, pdbName };
        }
        problems.push(`${candidate.path}: a different build (wanted ${debugId})`);
      } catch (error) {
        if (error instanceof AbortedError) throw error;
        problems.push(shortErrorMessage(error));
        if (error instanceof BadSymbolsError) badFiles.push(shortErrorMessage(error));
      }
      // A download that is not the file asked for does not stay in the cache (the next run
      // would find it first and reject it again, and it costs disk).
      if (candidate.downloaded) await removeDownload(candidate);
    }
    const tried = problems.length > 0 ? `: ${problems.join('; ')}` : ' on the symbol path';
    return {
      ok: false,
      reason: `${pdbName} ${debugId} not found${tried}`,
      ...(badFiles.length === 0 ? {} : { badFiles }),
    };
  }

  /** Opens a located file and checks it is the build the key names (undefined when not). */
  async #open(
    candidate: Located,
    key: SymbolKey,
    moduleKey: string,
  ): Promise<ModuleSymbolFile | undefined> {
    if (candidate.format === 'breakpad') {
      const size = (await stat(candidate.path)).size;
      const limit = this.#options.maxSymBytes ?? DEFAULT_MAX_SYM;
      if (size > limit)
        throw new IoError(`${candidate.path}: ${size} bytes is over the ${limit}-byte limit`);
      // Indexed line by line and kept open: lookups read the records they need again.
      const reader = await PositionedFileReader.open(candidate.path, {
        cacheBytes: SYM_CACHE_BYTES,
        ...(this.#options.signal === undefined ? {} : { signal: this.#options.signal }),
      });
      try {
        const sym = await BreakpadSymbols.open(reader, candidate.path);
        if (sym.module.debugId !== key.id.toUpperCase()) {
          await reader.close();
          return undefined;
        }
        await this.#openFiles.keep(moduleKey, reader, SYM_CACHE_BYTES);
        return sym;
      } catch (error) {
        await reader.close();
        throw error;
      }
    }
    if (candidate.format !== 'pdb') return undefined;
    const reader = await PositionedFileReader.open(candidate.path, {
      cacheBytes: PDB_CACHE_BYTES,
      ...(this.#options.signal === undefined ? {} : { signal: this.#options.signal }),
    });
    try {
      const pdb = await PdbFile.open(reader, candidate.path);
      if (!pdb.matches(key.id)) {
        await reader.close();
        return undefined;
      }
      await this.#openFiles.keep(moduleKey, reader, PDB_CACHE_BYTES);
      return pdb;
    } catch (error) {
      await reader.close();
      throw error;
    }
  }

  /**
   * PDB name and id from the image's debug directory: the image at the path the dump recorded
   * (a Wine `Z:\…` path is this machine's `/…`), else an image found on the symbol path.
   */
  async #identityFromImage(
    module: SymbolModule,
    notes: string[],
  ): Promise<{ pdbName: string; debugId: string } | undefined> {
    const codeId = moduleCodeId(module);
    let local = 0;
    for (const path of localPaths(module.path, this.#options.winePrefix)) {
      if (!isFile(path)) continue;
      local++;
      const found = await imagePdbIdentity(path, codeId, notes);
      if (found) return found;
    }
    // Not on this machine: look for the image on the symbol path (stores keep images too).
    const located = await this.#imagesOnPath(module, notes);
    for (const place of located) {
      const found = await imagePdbIdentity(place, codeId, notes);
      if (found) return found;
    }
    if (located.length === 0 && local === 0) {
      notes.push(`no CodeView record in the dump and no image of ${module.name} (${codeId}) found`);
    }
    return undefined;
  }

  /**
   * The module's image files on the symbol path (local stores, then servers, downloads kept in
   * the downstream store): the supplier's image search shares the symbol files' path and layout.
   */
  async imageFiles(module: SymbolModule): Promise<string[]> {
    return this.#imagesOnPath(module, []);
  }

  async #imagesOnPath(module: SymbolModule, notes: string[]): Promise<string[]> {
    const key = moduleCodeId(module);
    const safe = safeKey({ name: module.name, id: key }, { name: 'image name', id: 'code id' });
    if (!safe.ok) {
      notes.push(safe.reason);
      return [];
    }
    let found = this.#images.get(moduleIdentityKey(module));
    if (!found) {
      found = this.#locator
        .locate(safe.key, { image: true, all: true })
        .then((located) => located.found.map((f) => f.path));
      this.#images.set(moduleIdentityKey(module), found);
      // Lists of paths, oldest first: past the bound the oldest is asked again if needed.
      const oldest = this.#images.keys().next().value;
      if (this.#images.size > this.#bound && oldest !== undefined) this.#images.delete(oldest);
    }
    return found;
  }
}

async function removeDownload(candidate: Located): Promise<void> {
  await Promise.all(
    (candidate.written ?? [candidate.path]).map((path) => rm(path, { force: true })),
  );
}
