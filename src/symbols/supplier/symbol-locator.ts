// Finds a symbol file (or an image) along a parsed symbol path, the way symsrv walks one: each
// element in order; in a srv* element the downstream stores first, then the upstream store, and
// a file fetched from an HTTP upstream is written into the downstream stores with the same
// layout (a `.pd_` cabinet is stored expanded, as symsrv does) so the next run finds it locally.
// Every download is bounded (bytes, deadline) and streamed to disk (cache-writer.ts); a transient
// failure (refused, reset, HTTP 5xx) is tried again after a bounded backoff; a server that still
// fails is not asked for a while (SERVER_COOLDOWN_MS), so one dead server costs a few tries per
// minute of a batch, not one timeout per module, and it is said once (onServerDown).
import { setTimeout as sleepFor } from 'node:timers/promises';
import { DownloadSlots } from './download-slots.js';
import { join } from 'node:path';
import { AbortedError, BadSymbolsError, isHarnessError } from '../../errors.js';
import {
  download,
  expandCab,
  isTransientDownloadError,
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
import { PositionedFileReader } from '../../minidump/file-reader.js';
import { checkImage } from './image-check.js';
import {
  copyIntoStore,
  openPart,
  publish,
  removeStaleParts,
  type PartFile,
} from './cache-writer.js';
import { existingFiles, isFile } from './local-store-files.js';
import type { RedirectPolicy } from '../redirect-policy.js';
import { eitherSignal } from '../../common/either-signal.js';

export interface LocatorOptions {
  fetch?: FetchLike;
  /** Per download (default 60 s; `--symbol-timeout`). */
  downloadTimeoutMs?: number;
  /** More tries after a transient failure (refused, reset, HTTP 5xx/429/408; default 2). */
  retries?: number;
  /** Pause before the first retry, doubled for each next one (default 500 ms, at most 4 s). */
  retryDelayMs?: number;
  /** Told once per server when it is given up on (after its retries), with the reason. */
  onServerDown?: (server: string, reason: string) => void;
  /**
   * Per file, downloaded or expanded from a cabinet (default 1 GiB: big PDBs are hundreds of MB;
   * `--symbol-max-size`); further bounded per module by plausibleSymbolBytes.
   */
  maxDownloadBytes?: number;
  /** Downloads at once (default 4): the cache holds at most this many parts of the limit. */
  downloadSlots?: number;
  /** Which redirects a download follows (default `https`; `--symbol-redirects`, redirect-policy.ts). */
  redirects?: RedirectPolicy;
  signal?: AbortSignal;
}

export interface Located {
  path: string;
  format: 'pdb' | 'breakpad' | 'image';
  /** The element (or URL) it came from, for the record. */
  from: string;
  downloaded: boolean;
  /** Every copy a download wrote (one per downstream store): deleted if the file is rejected. */
  written?: string[];
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
  /** A failure another try may cure (isTransientDownloadError). */
  transient?: boolean;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_RETRIES = 2;
const DEFAULT_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 4000;
/** A server given up on is asked again after this long (an outage in a long batch ends). */
export const SERVER_COOLDOWN_MS = 60_000;
export const DEFAULT_MAX_SYMBOL_BYTES = 1 << 30;
const DEFAULT_MAX_BYTES = DEFAULT_MAX_SYMBOL_BYTES;
/** A PDB (or .sym) runs to a few times its image; 64× with a 64 MiB floor leaves room for all. */
const PLAUSIBLE_RATIO = 64;
const PLAUSIBLE_FLOOR = 64 << 20;

/**
 * The most a symbol file of a module of `imageSize` bytes may be: `limit` (--symbol-max-size),
 * and no more than 64× the image (at least 64 MiB). A cabinet that claims more is refused on its
 * header, a body that runs past it is cut off and deleted.
 */
export function plausibleSymbolBytes(limit: number, imageSize: number | undefined): number {
  if (imageSize === undefined || !(imageSize > 0)) return limit;
  return Math.min(limit, Math.max(PLAUSIBLE_FLOOR, imageSize * PLAUSIBLE_RATIO));
}

export class SymbolLocator {
  readonly #elements: readonly SymbolPathElement[];
  readonly #options: LocatorOptions;
  readonly #deadServers = new Map<string, { reason: string; until: number }>();
  readonly #reported = new Set<string>();
  readonly #twoTier = new Map<string, Promise<boolean>>();
  readonly #cleaned = new Map<string, Promise<void>>();
  #startup: Promise<void> | undefined;
  /** Downloads in flight, by URL: parallel dumps asking for one module share one download. */
  readonly #inFlight = new Map<string, Promise<Located | Problem | undefined>>();
  readonly #slots: DownloadSlots;

  constructor(elements: readonly SymbolPathElement[], options: LocatorOptions = {}) {
    this.#elements = elements;
    this.#options = options;
    this.#slots = new DownloadSlots(options.downloadSlots);
  }

  /**
   * Looks for `key` everywhere on the path. Stops at the first hit unless `all` (the caller may
   * need the next candidate when the first has the wrong GUID).
   */
  async locate(
    key: SymbolKey,
    options: {
      image?: boolean;
      imageExtension?: string;
      all?: boolean;
      /** The module's SizeOfImage: bounds what a download for it may plausibly be. */
      imageSize?: number;
    } = {},
  ): Promise<LocateResult> {
    await this.#allStoresReady();
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
        for (const hit of existingFiles(element.path, candidates, element.path)) found.push(hit);
      } else {
        for (const store of [...element.downstream, element.upstream]) {
          if (isHttpLocation(store)) {
            // A server is only asked when nothing was found nearer (downloads cost).
            if (found.length > 0) continue;
            const hit = await this.#fromServer(store, key, image, element.downstream, problems, {
              maxBytes: plausibleSymbolBytes(
                this.#options.maxDownloadBytes ?? DEFAULT_MAX_BYTES,
                options.imageSize,
              ),
            });
            if (hit) found.push(hit);
          } else {
            const twoTier = await this.#isTwoTier(store);
            const hits = existingFiles(store, storeCandidates(key, { twoTier, image }), store);
            for (const hit of hits) found.push(hit);
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
    limits: { maxBytes: number },
  ): Promise<Located | undefined> {
    for (const candidate of storeCandidates(key, { twoTier: false, image })) {
      // Looked at before each candidate: the server may have been given up on meanwhile.
      const dead = this.#givenUp(server);
      if (dead !== undefined) {
        problems.push(`${server}: not asked (failed ${dead}; asked again after a pause)`);
        return undefined;
      }
      const url = `${server.replace(/\/+$/, '')}/${urlPath(candidate.relative)}`;
      let pending = this.#inFlight.get(url);
      if (!pending) {
        pending = this.#fetchWithRetries(server, url, candidate, downstream, limits.maxBytes);
        this.#inFlight.set(url, pending);
        void pending.finally(() => this.#inFlight.delete(url));
      }
      const result = await pending;
      if (result === undefined) continue;
      if ('problem' in result) {
        problems.push(result.problem);
        if (result.serverDown) {
          this.#deadServers.set(server, {
            reason: result.problem,
            until: Date.now() + SERVER_COOLDOWN_MS,
          });
          if (!this.#reported.has(server)) {
            this.#reported.add(server);
            this.#options.onServerDown?.(server, result.problem);
          }
          return undefined;
        }
        continue;
      }
      return result;
    }
    return undefined;
  }

  /** Why `server` is not asked now (it failed less than SERVER_COOLDOWN_MS ago), or undefined. */
  #givenUp(server: string): string | undefined {
    const dead = this.#deadServers.get(server);
    return dead !== undefined && Date.now() < dead.until ? dead.reason : undefined;
  }

  /** #fetchOne, tried again after a pause (bounded backoff) while its failure is transient. */
  async #fetchWithRetries(
    server: string,
    url: string,
    candidate: StoreCandidate,
    downstream: readonly string[],
    maxBytes: number,
  ): Promise<Located | Problem | undefined> {
    const retries = this.#options.retries ?? DEFAULT_RETRIES;
    let delay = this.#options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
    for (let attempt = 0; ; attempt++) {
      // A slot per try, taken before its deadline starts: waiting is not downloading. A server
      // given up on while this waited is not asked (the caller says why).
      const result = await this.#slots.run(
        () =>
          this.#givenUp(server) !== undefined
            ? Promise.resolve(undefined)
            : this.#fetchOne(url, candidate, downstream, maxBytes),
        this.#options.signal,
      );
      if (result === undefined || !('problem' in result) || result.transient !== true) {
        return result;
      }
      if (attempt >= retries) {
        return { ...result, problem: `${result.problem} (${attempt + 1} tries)` };
      }
      try {
        await sleep(delay, this.#options.signal);
      } catch (error) {
        throw new AbortedError(`${url}: download aborted`, { cause: error });
      }
      delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
    }
  }

  /** A Located on success, undefined on 404, a Problem on failure. */
  async #fetchOne(
    url: string,
    candidate: StoreCandidate,
    downstream: readonly string[],
    maxBytes: number,
  ): Promise<Located | Problem | undefined> {
    const stores = downstream.filter((d) => !isHttpLocation(d));
    const first = stores[0];
    if (first === undefined) {
      return { problem: `${url}: no downstream store to keep the download in`, serverDown: false };
    }
    await this.#storeReady(first);
    const fetchImpl = this.#options.fetch ?? globalThis.fetch;
    const timeout = AbortSignal.timeout(this.#options.downloadTimeoutMs ?? DEFAULT_TIMEOUT_MS);
    const signal = eitherSignal(this.#options.signal, timeout);
    // The body streams to a part file in the first store: memory holds one chunk at a time.
    let part: PartFile | undefined;
    let expanded: PartFile | undefined;
    try {
      part = await openPart(first);
      const sink = part;
      const result = await download(fetchImpl, url, {
        signal,
        maxBytes,
        ...(this.#options.redirects === undefined ? {} : { redirects: this.#options.redirects }),
        write: (c) => sink.write(c),
      });
      await part.close();
      if (!result.found) {
        await part.discard();
        return undefined;
      }
      let relative = candidate.relative;
      let format: Located['format'] = candidate.format === 'cab' ? 'pdb' : candidate.format;
      let ready = part.path;
      if (candidate.format === 'cab') {
        // Stored expanded, under the uncompressed name (`x.pd_` → `x.pdb`), as symsrv does; the
        // expansion is bounded by the same limit (a cabinet bomb is refused on its header).
        expanded = await openPart(first);
        const out = expanded;
        const reader = await PositionedFileReader.open(part.path);
        try {
          await expandCab(reader, url, { maxBytes, write: (c) => out.write(c) });
        } finally {
          await reader.close();
        }
        await expanded.close();
        await part.discard();
        ready = expanded.path;
        const parts = relative.split('/');
        const full = parts.at(-3) ?? relative;
        relative = [...parts.slice(0, -1), full].join('/');
        format = /\.(exe|dll|sys)$/i.test(full) ? 'image' : 'pdb';
      }
      // An image is kept only when it is the image asked for: a server answering every GET with
      // 10 bytes once left 10-byte `ntdll.dll`s in the cache, never asked for again (issue 30).
      if (format === 'image') await checkImage(ready, url, relative);
      const path = join(first, relative);
      await publish(ready, path);
      const written = [path];
      for (const store of stores.slice(1)) {
        const target = join(store, relative);
        await this.#storeReady(store);
        await copyIntoStore(path, store, target);
        written.push(target);
      }
      return { path, format, from: url, downloaded: true, written };
    } catch (error) {
      await part?.discard();
      await expanded?.discard();
      if (error instanceof AbortedError) throw error;
      if (isHarnessError(error)) {
        // A file too big or not a cabinet is that file's problem; a failing server is the server's.
        return {
          problem: error.shortMessage,
          serverDown: !(error instanceof BadSymbolsError),
          transient: isTransientDownloadError(error),
        };
      }
      const why = error instanceof Error ? error.message : String(error);
      return { problem: `${url}: cannot write the cache ${first}: ${why}`, serverDown: false };
    }
  }

  /** At the start of a run: every downstream store of the path rid of dead runs' parts. */
  #allStoresReady(): Promise<void> {
    this.#startup ??= Promise.all(
      this.#elements
        .flatMap((e) => (e.kind === 'store' ? e.downstream : []))
        .filter((d) => !isHttpLocation(d))
        .map((d) => this.#storeReady(d)),
    ).then(() => undefined);
    return this.#startup;
  }

  /** Stale parts of dead runs removed once per store, before this run writes there. */
  #storeReady(store: string): Promise<void> {
    let ready = this.#cleaned.get(store);
    if (!ready) {
      ready = removeStaleParts(store).then(
        () => undefined,
        () => undefined,
      );
      this.#cleaned.set(store, ready);
    }
    return ready;
  }

  #isTwoTier(root: string): Promise<boolean> {
    let known = this.#twoTier.get(root);
    if (!known) {
      known = Promise.resolve(isFile(join(root, 'index2.txt')));
      this.#twoTier.set(root, known);
    }
    return known;
  }
}

/** A pause that ends early (rejecting) when the signal aborts; its timer never outlives it. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return sleepFor(ms, undefined, signal === undefined ? {} : { signal });
}
