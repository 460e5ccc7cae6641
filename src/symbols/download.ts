// One bounded download from a symbol server through a fetch function the caller hands in (the
// global fetch in production, anything fetch-shaped in tests). The caller's AbortSignal carries
// the deadline; the body is read chunk by chunk and each chunk handed to the caller's `write`
// (a file on disk: the leaf never holds a whole body), given up as soon as it passes maxBytes, so
// a misbehaving server can cost neither unbounded memory nor unbounded time. A file over the
// limit is that file's problem (BadSymbolsError); a server that fails is an IoError.
import { AbortedError, BadSymbolsError, IoError } from '../errors.js';
import {
  DEFAULT_REDIRECT_POLICY,
  MAX_REDIRECTS,
  redirectRefusal,
  type RedirectPolicy,
} from './redirect-policy.js';

/**
 * Called with `redirect: 'manual'`: a redirect comes back as its 3xx answer and download()
 * decides whether to follow it (redirect-policy.ts). A fetch that follows by itself still works,
 * unchecked.
 */
export type FetchLike = (
  url: string,
  init: { signal: AbortSignal; redirect: 'manual' | 'follow'; headers: Record<string, string> },
) => Promise<{
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
  body: ReadableStream<Uint8Array> | null;
}>;

/** Failures worth another try after a pause: refused or reset connections, HTTP 408/429/5xx. */
const transient = new WeakSet<Error>();

/**
 * True for a download failure a retry may cure (the server restarting, overloaded, a dropped
 * connection); false for a deadline already spent, an abort, or an answer that will not change.
 */
export function isTransientDownloadError(error: unknown): boolean {
  return error instanceof Error && transient.has(error);
}

function markTransient<E extends Error>(error: E): E {
  transient.add(error);
  return error;
}

export type DownloadResult = { found: true; size: number } | { found: false; status: number };

/** Where the body goes, chunk by chunk (awaited: the pace of the sink is the pace of the read). */
export type ChunkSink = (chunk: Uint8Array) => Promise<void>;

export async function download(
  fetch: FetchLike,
  url: string,
  options: { signal: AbortSignal; maxBytes: number; write: ChunkSink; redirects?: RedirectPolicy },
): Promise<DownloadResult> {
  const response = await followRedirects(fetch, url, options);
  if (response.status === 404 || response.status === 410) {
    await response.body?.cancel().catch(() => undefined);
    return { found: false, status: response.status };
  }
  if (response.status < 200 || response.status >= 300) {
    await response.body?.cancel().catch(() => undefined);
    const error = new IoError(`${url}: HTTP ${response.status} ${response.statusText}`.trim());
    const retry = response.status >= 500 || response.status === 429 || response.status === 408;
    throw retry ? markTransient(error) : error;
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new BadSymbolsError(
      url,
      `${url}: ${declared} bytes is over the ${options.maxBytes}-byte download limit`,
    );
  }
  if (!response.body) return { found: true, size: 0 };
  const reader = response.body.getReader();
  let total = 0;
  let finished = false;
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        throw failure(url, error, options.signal);
      }
      if (next.done) break;
      total += next.value.byteLength;
      if (total > options.maxBytes) {
        throw new BadSymbolsError(
          url,
          `${url}: more than the ${options.maxBytes}-byte download limit`,
        );
      }
      // The sink's errors (a full disk) are the caller's, not the server's: passed on as they are.
      await options.write(next.value);
    }
    finished = true;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  return { found: true, size: total };
}

// 301, 302, 303, 307, 308: the statuses fetch itself follows (https://fetch.spec.whatwg.org/#redirect-status).
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The first answer that is not a redirect, each hop checked against the policy. */
async function followRedirects(
  fetch: FetchLike,
  url: string,
  options: { signal: AbortSignal; redirects?: RedirectPolicy },
): Promise<Awaited<ReturnType<FetchLike>>> {
  const policy = options.redirects ?? DEFAULT_REDIRECT_POLICY;
  let current = url;
  for (let hops = 0; ; hops++) {
    let response: Awaited<ReturnType<FetchLike>>;
    try {
      response = await fetch(current, {
        signal: options.signal,
        redirect: policy === 'any' ? 'follow' : 'manual',
        headers: { 'user-agent': 'cdb-harness-symbols' },
      });
    } catch (error) {
      throw failure(url, error, options.signal);
    }
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    if (location === null) {
      throw new IoError(`${url}: HTTP ${response.status} redirect without a Location`);
    }
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new IoError(`${url}: HTTP ${response.status} redirect to a bad URL (${location})`);
    }
    if (hops >= MAX_REDIRECTS) {
      throw new IoError(`${url}: more than ${MAX_REDIRECTS} redirects`);
    }
    const refusal = redirectRefusal(new URL(current), next, policy);
    if (refusal !== null) {
      throw new IoError(
        `${url}: redirect to ${next.origin} not followed (${refusal}); --symbol-redirects ${policy === 'same-host' ? 'https or any' : 'any'} allows it`,
      );
    }
    current = next.href;
  }
}

function failure(url: string, error: unknown, signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (signal.aborted) {
    const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
    return timedOut
      ? new IoError(`${url}: no answer before the download deadline`, { cause: error })
      : new AbortedError(`${url}: download aborted`, { cause: error });
  }
  const cause =
    error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return markTransient(
    new IoError(`${url}: ${error instanceof Error ? error.message : String(error)}${cause}`, {
      cause: error,
    }),
  );
}
