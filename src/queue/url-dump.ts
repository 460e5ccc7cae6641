// Dumps given as http(s) URLs. The producer streams one through sha256 (nothing kept) to record
// its size and hash in the job; a worker downloads it into a temp folder with a size cap and a
// deadline, checks it against what the producer recorded, analyses it and deletes it. Either
// side's failure (404, too large, hash mismatch, no answer in time) is that dump's failed record.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AbortedError, IoError, errorMessage, isHarnessError } from '../errors.js';
import { eitherSignal } from '../common/either-signal.js';

/** Default cap on one downloaded dump (`--max-download`): 4 GiB, a large full-memory dump. */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 4 * 1024 ** 3;
/** Default deadline for one download (`--download-timeout`). */
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

export interface DownloadLimits {
  maxBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

/**
 * Streams a URL's body to `sink` chunk by chunk, stopping (an IoError) past `maxBytes`, after
 * `timeoutMs`, or on a non-2xx status. Returns the sha256 and size of what was read.
 */
async function streamUrl(
  url: string,
  limits: DownloadLimits,
  sink?: (chunk: Uint8Array) => Promise<void>,
): Promise<{ sha256: string; size: number }> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = eitherSignal(limits.signal, deadline);
  const hash = createHash('sha256');
  let size = 0;
  try {
    const response = await (limits.fetch ?? fetch)(url, { signal, redirect: 'follow' });
    if (!response.ok || response.body === null) {
      await response.body?.cancel().catch(() => undefined);
      throw new IoError(
        `download of ${url} failed: HTTP ${response.status} ${response.statusText}`,
      );
    }
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw tooLarge(url, declared, limits.maxBytes);
    }
    const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(url, size, limits.maxBytes);
      }
      hash.update(value);
      await sink?.(value);
    }
  } catch (error) {
    if (isHarnessError(error)) throw error;
    if (limits.signal?.aborted === true) throw new AbortedError(`download of ${url} interrupted`);
    if (deadline.aborted) {
      throw new IoError(
        `download of ${url} took longer than ${Math.round(limits.timeoutMs / 1000)} s`,
      );
    }
    throw new IoError(`download of ${url} failed: ${errorMessage(error)}`, { cause: error });
  }
  return { sha256: hash.digest('hex'), size };
}

function tooLarge(url: string, bytes: number, max: number): IoError {
  return new IoError(`download of ${url} is too large: ${bytes} bytes or more (limit ${max})`);
}

/** The producer's side: size and sha256 of a URL's body, nothing written. */
export function hashUrl(
  url: string,
  limits: DownloadLimits,
): Promise<{ sha256: string; size: number }> {
  return streamUrl(url, limits);
}

export interface DownloadedDump {
  path: string;
  /** Removes the temp folder (call it whatever happened). */
  remove(): Promise<void>;
}

/**
 * The worker's side: the body into `<tmp>/cdbh-dl-PID-XXXX/dump.dmp` (a later worker removes a killed one's), checked against the size and
 * sha256 the producer recorded. On any failure the folder is already gone when this throws.
 */
export async function downloadDump(
  url: string,
  expected: { sha256: string; size: number },
  limits: DownloadLimits,
): Promise<DownloadedDump> {
  const dir = await mkdtemp(join(tmpdir(), `cdbh-dl-${process.pid}-`));
  const remove = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'dump.dmp');
  const out = createWriteStream(path, { mode: 0o600 });
  const closed = new Promise<void>((resolve, reject) => {
    out.on('close', resolve);
    out.on('error', reject);
  });
  try {
    // The producer's size is a cap too: a body longer than what was hashed cannot match.
    const got = await streamUrl(
      url,
      { ...limits, maxBytes: Math.min(limits.maxBytes, expected.size) },
      (chunk) =>
        new Promise<void>((resolve, reject) => {
          out.write(chunk, (error) => (error ? reject(error) : resolve()));
        }),
    );
    out.end();
    await closed;
    if (got.sha256 !== expected.sha256 || got.size !== expected.size) {
      throw new IoError(
        `download of ${url} does not match what was enqueued: sha256 ${got.sha256} (${got.size} bytes), expected ${expected.sha256} (${expected.size} bytes)`,
      );
    }
    return { path, remove };
  } catch (error) {
    out.destroy();
    await closed.catch(() => undefined);
    await remove();
    throw error;
  }
}
