// records.ndjson: one analyze record per line, appended as each dump finishes so `tail -f` shows
// progress and an interrupted run keeps every complete record. Reading is streamed line by line:
// a batch of thousands of dumps never sits in memory at once.
import { errorMessage, failureCause, IoError } from '../../errors.js';
import { constants, createReadStream, existsSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { AnalyzeDumpRecord } from './analyze-record.js';

export const RECORDS_FILE = 'records.ndjson';

export interface ReadRecordsOptions {
  /** Told about each line that is not a record (a torn last line after a crash, hand edits). */
  onBadLine?: (lineNumber: number, reason: string) => void;
}

/** Streams the records of an ndjson file; a missing file yields nothing. */
export async function* readRecords(
  path: string,
  options: ReadRecordsOptions = {},
): AsyncGenerator<AnalyzeDumpRecord> {
  for await (const { record } of readNumbered(path, options)) yield record;
}

/**
 * The records that still stand: where one input was recorded more than once (it changed after it
 * was recorded and `--resume` analysed it again), only its last record. Two streamed passes; what
 * is held is one line number per input path, never the records.
 */
export async function* readLatestRecords(
  path: string,
  options: ReadRecordsOptions = {},
): AsyncGenerator<AnalyzeDumpRecord> {
  const last = new Map<string, number>();
  for await (const { record, line } of readNumbered(path)) last.set(inputKey(record), line);
  for await (const { record, line } of readNumbered(path, options)) {
    if (last.get(inputKey(record)) === line) yield record;
  }
}

/** Which input a record is about: its exact bytes when the name is not UTF-8 (two such read alike). */
function inputKey(record: AnalyzeDumpRecord): string {
  return record.fileBytes === undefined ? record.file : `bytes:${record.fileBytes}`;
}

async function* readNumbered(
  path: string,
  options: ReadRecordsOptions = {},
): AsyncGenerator<{ record: AnalyzeDumpRecord; line: number }> {
  if (!existsSync(path)) return;
  // Loaded when records are read back (--resume, --merge, a big report), not at every start-up.
  const { createInterface } = await import('node:readline');
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      options.onBadLine?.(lineNumber, errorMessage(error));
      continue;
    }
    if (!isRecordLike(value)) {
      options.onBadLine?.(lineNumber, 'not an analyze record (no file/sha256)');
      continue;
    }
    yield { record: upgradeRecord(value), line: lineNumber };
  }
}

/**
 * Records written by an older version, read back by --resume, --merge and --rebucket, get the
 * field names of this one (fileSize beside size; module times as ISO 8601 beside the epoch).
 */
function upgradeRecord(record: AnalyzeDumpRecord): AnalyzeDumpRecord {
  const old = record as Partial<AnalyzeDumpRecord>;
  if (old.fileSize === undefined && typeof old.size === 'number') record.fileSize = old.size;
  const faulting = record.modules?.faulting as { timestamp?: unknown } | undefined;
  if (faulting && typeof faulting.timestamp === 'number') {
    const seconds = faulting.timestamp;
    record.modules.faulting = {
      ...record.modules.faulting!,
      timestamp: new Date(seconds * 1000).toISOString(),
      timestampEpoch: seconds,
    };
  }
  return record;
}

function isRecordLike(value: unknown): value is AnalyzeDumpRecord {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { file?: unknown }).file === 'string' &&
    typeof (value as { sha256?: unknown }).sha256 === 'string'
  );
}

/** The sha256 of every record already in the file (for `--resume`). */
export async function recordedHashes(path: string): Promise<Set<string>> {
  const hashes = new Set<string>();
  for await (const record of readRecords(path)) hashes.add(record.sha256);
  return hashes;
}

/**
 * Appends records, one write per line, in the order `append` is called. The line is written
 * before `append` returns (a blocking write of a few KB into the page cache: through the libuv
 * pool each line cost a thread hand-off, several times the write itself), so two workers
 * finishing together cannot interleave bytes of their lines.
 */
export class RecordAppender {
  private closed = false;

  private constructor(
    private readonly handle: FileHandle,
    /** Bytes of a torn last line removed when the file was opened (0 when it ended cleanly). */
    readonly torn = 0,
  ) {}

  /**
   * Opens for appending. A run killed mid-write can leave a torn last line: it is cut off here
   * (the file ends after its last complete line), so the dump it was about, having no record,
   * is analysed again and the file holds only whole records. Returns the bytes cut in `torn`.
   */
  static async open(path: string): Promise<RecordAppender> {
    const handle = await openNoFollow(path);
    try {
      const { size } = await handle.stat();
      const end = await endOfLastLine(handle, size);
      if (end < size) await handle.truncate(end);
      return new RecordAppender(handle, size - end);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** `json`: the record's JSON text when the caller already has it (record-bounds.ts). */
  append(record: AnalyzeDumpRecord, json?: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error('record file already closed'));
    try {
      const line = Buffer.from(`${json ?? JSON.stringify(record)}\n`);
      // The file is opened for appending: every write lands at its end.
      for (let done = 0; done < line.length;) {
        done += writeSync(this.handle.fd, line, done, line.length - done);
      }
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/**
 * Cuts a torn last line off a records file (see RecordAppender.open); returns the bytes removed.
 * `--resume` calls it before reading what is done, so a record that lost its newline is not
 * counted as done and then removed.
 */
export async function cutTornLine(path: string): Promise<number> {
  if (!existsSync(path)) return 0;
  const appender = await RecordAppender.open(path);
  await appender.close();
  return appender.torn;
}

/** Offset just past the last newline of the file (0 when it has none): where whole lines end. */
async function endOfLastLine(handle: FileHandle, size: number): Promise<number> {
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (let end = size; end > 0;) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const at = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (at !== -1) return start + at + 1;
    end = start;
  }
  return 0;
}

/** Not defined on Windows; there the lstat check below stands in for it. */
const NO_FOLLOW = (constants.O_NOFOLLOW as number | undefined) ?? 0;

/**
 * Opens an output for reading and appending, created if missing, never through a link: a
 * symbolic link planted in --out (`records.ndjson` -> a victim file) would otherwise have the
 * victim cut and appended to. O_NOFOLLOW refuses a link in the last component (ELOOP); a hard
 * link (more than one name) or anything but a regular file is refused after the open.
 */
export async function openNoFollow(path: string): Promise<FileHandle> {
  if (NO_FOLLOW === 0) {
    const { lstat } = await import('node:fs/promises');
    const info = await lstat(path).catch(() => undefined);
    if (info?.isSymbolicLink() === true) throw linkRefused(path, 'a symbolic link');
  }
  let handle: FileHandle;
  try {
    handle = await open(
      path,
      constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW,
      0o644,
    );
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw linkRefused(path, 'a symbolic link');
    throw new IoError(`cannot open ${path}: ${failureCause(error)}`, { cause: error });
  }
  const info = await handle.stat();
  const why = !info.isFile()
    ? 'not a regular file'
    : info.nlink > 1
      ? `a file with ${info.nlink} names (a hard link)`
      : undefined;
  if (why !== undefined) {
    await handle.close();
    throw linkRefused(path, why);
  }
  return handle;
}

function linkRefused(path: string, what: string): IoError {
  return new IoError(`${path} is ${what}: refused (outputs are never written through links)`);
}
