// Finds a symbol file (or an image) along a parsed symbol path, the way symsrv walks one: each
// element in order; in a srv* element the downstream stores first, then the upstream store, and
// a file fetched from an HTTP upstream is written into the downstream stores with the same
// layout (a `.pd_` cabinet is stored expanded, as symsrv does) so the next run finds it locally.
// Every download is bounded (bytes, deadline); a server that fails (not a plain 404) is not asked
// again in this run, so one dead server costs one timeout per batch, not one per module.
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AbortedError, BadSymbolsError, isHarnessError } from '../../errors.js';
import {
  caseVariants,
  download,
  extractCab,
  folderCandidates,
  isHttpLocation,
  safeKey,
  storeCandidates,
  urlPath,
  type FetchLike,
  type StoreCandidate,
  type SymbolKey,
  type SymbolPathElement,
} from '../index.js';

export interface LocatorOptions {
  fetch?: FetchLike;
  /** Per download (default 60 s). */
  downloadTimeoutMs?: number;
  /** Per file (default 1 GiB: big PDBs are hundreds of MB). */
  maxDownloadBytes?: number;
  signal?: AbortSignal;
}

export interface Located {
  path: string;
  format: 'pdb' | 'breakpad' | 'image';
  /** The element (or URL) it came from, for the record. */
  from: string;
  downloaded: boolean;
}

export interface LocateResult {
  /** Every file found, in path order (the caller checks identity and takes the first good one). */
  found: Located[];
  /** Why places had nothing: `http://…: HTTP 500`, `server failed earlier: …`. */
  problems: string[];
}

interface Problem {
  problem: string;
  /** True for failures of the server itself (refused, timed out, HTTP 5xx), not of one file. */
  serverDown: boolean;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_BYTES = 1 << 30;

export class SymbolLocator {
  readonly #elements: readonly SymbolPathElement[];
  readonly #options: LocatorOptions;
  readonly #deadServers = new Map<string, string>();
  readonly #twoTier = new Map<string, Promise<boolean>>();
  /** Downloads in flight, by URL: parallel dumps asking for one module share one download. */
  readonly #inFlight = new Map<string, Promise<Located | Problem | undefined>>();

  constructor(elements: readonly SymbolPathElement[], options: LocatorOptions = {}) {
    this.#elements = elements;
    this.#options = options;
  }

  /**
   * Looks for `key` everywhere on the path. Stops at the first hit unless `all` (the caller may
   * need the next candidate when the first has the wrong GUID).
   */
  async locate(
    key: SymbolKey,
    options: { image?: boolean; imageExtension?: string; all?: boolean } = {},
  ): Promise<LocateResult> {
    const found: Located[] = [];
    const problems: string[] = [];
    // Names come from dumps: one that is not a safe path segment is never a path or a URL.
    const safe = safeKey(key);
    if (!safe.ok) return { found, problems: [safe.reason] };
    key = safe.key;
    const image = options.image === true;
    for (const element of this.#elements) {
      if (element.kind === 'directory') {
        const twoTier = await this.#isTwoTier(element.path);
        const candidates = folderCandidates(key, {
          twoTier,
          image,
          ...(options.imageExtension === undefined
            ? {}
            : { imageExtension: options.imageExtension }),
        });
        found.push(...(await existing(element.path, candidates, element.path)));
      } else {
        for (const store of [...element.downstream, element.upstream]) {
          if (isHttpLocation(store)) {
            // A server is only asked when nothing was found nearer (downloads cost).
            if (found.length > 0) continue;
            const hit = await this.#fromServer(store, key, image, element.downstream, problems);
            if (hit) found.push(hit);
          } else {
            const twoTier = await this.#isTwoTier(store);
            found.push(...(await existing(store, storeCandidates(key, { twoTier, image }), store)));
          }
          if (found.length > 0 && options.all !== true) break;
        }
      }
      if (found.length > 0 && options.all !== true) break;
    }
    return { found, problems };
  }

  async #fromServer(
    server: string,
    key: SymbolKey,
    image: boolean,
    downstream: readonly string[],
    problems: string[],
  ): Promise<Located | undefined> {
    const dead = this.#deadServers.get(server);
    if (dead !== undefined) {
      problems.push(`${server}: not asked again (failed earlier in this run: ${dead})`);
      return undefined;
    }
    for (const candidate of storeCandidates(key, { twoTier: false, image })) {
      const url = `${server.replace(/\/+$/, '')}/${urlPath(candidate.relative)}`;
      let pending = this.#inFlight.get(url);
      if (!pending) {
        pending = this.#fetchOne(url, candidate, downstream);
        this.#inFlight.set(url, pending);
        void pending.finally(() => this.#inFlight.delete(url));
      }
      const result = await pending;
      if (result === undefined) continue;
      if ('problem' in result) {
        problems.push(result.problem);
        if (result.serverDown) {
          this.#deadServers.set(server, result.problem);
          return undefined;
        }
        continue;
      }
      return result;
    }
    return undefined;
  }

  /** A Located on success, undefined on 404, a Problem on failure. */
  async #fetchOne(
    url: string,
    candidate: StoreCandidate,
    downstream: readonly string[],
  ): Promise<Located | Problem | undefined> {
    const fetchImpl = this.#options.fetch ?? globalThis.fetch;
    const timeout = AbortSignal.timeout(this.#options.downloadTimeoutMs ?? DEFAULT_TIMEOUT_MS);
    const signal =
      this.#options.signal === undefined
        ? timeout
        : AbortSignal.any([this.#options.signal, timeout]);
    const maxBytes = this.#options.maxDownloadBytes ?? DEFAULT_MAX_BYTES;
    let bytes: Buffer;
    try {
      const result = await download(fetchImpl, url, { signal, maxBytes });
      if (!result.found) return undefined;
      bytes = result.bytes;
    } catch (error) {
      if (error instanceof AbortedError) throw error;
      const problem = isHarnessError(error) ? error.shortMessage : `${url}: ${String(error)}`;
      return { problem, serverDown: !(error instanceof BadSymbolsError) };
    }
    let relative = candidate.relative;
    let format: Located['format'] = candidate.format === 'cab' ? 'pdb' : candidate.format;
    if (candidate.format === 'cab') {
      try {
        bytes = extractCab(bytes, url, maxBytes).data;
      } catch (error) {
        const why = isHarnessError(error) ? error.shortMessage : String(error);
        return { problem: why, serverDown: false };
      }
      // Stored expanded, under the uncompressed name (`x.pd_` → `x.pdb`), as symsrv does.
      const name = relative.slice(relative.lastIndexOf('/') + 1);
      const parts = relative.split('/');
      const full = parts.at(-3) ?? name;
      relative = [...parts.slice(0, -1), full].join('/');
      format = /\.(exe|dll|sys)$/i.test(full) ? 'image' : 'pdb';
    }
    const stores = downstream.filter((d) => !isHttpLocation(d));
    let path: string | undefined;
    for (const store of stores) {
      const target = join(store, ...relative.split('/'));
      try {
        await writeAtomically(target, bytes);
        path ??= target;
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        return { problem: `${url}: cannot write the cache ${target}: ${why}`, serverDown: false };
      }
    }
    if (path === undefined) {
      return { problem: `${url}: no downstream store to keep the download in`, serverDown: false };
    }
    return { path, format, from: url, downloaded: true };
  }

  #isTwoTier(root: string): Promise<boolean> {
    let known = this.#twoTier.get(root);
    if (!known) {
      known = isFile(join(root, 'index2.txt'));
      this.#twoTier.set(root, known);
    }
    return known;
  }
}

async function existing(
  root: string,
  candidates: readonly StoreCandidate[],
  from: string,
): Promise<Located[]> {
  const out: Located[] = [];
  for (const candidate of candidates) {
    if (candidate.format === 'cab') continue; // local cabinets are rare; servers send them
    for (const relative of caseVariants(candidate.relative)) {
      const path = join(root, ...relative.split('/'));
      if (await isFile(path)) {
        out.push({ path, format: candidate.format, from, downloaded: false });
        break;
      }
    }
  }
  return out;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Writes to a temp name and renames: a crash mid-write never leaves a half file in the cache. */
async function writeAtomically(path: string, bytes: Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.part`;
  try {
    await writeFile(temp, bytes);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
