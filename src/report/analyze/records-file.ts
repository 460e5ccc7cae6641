// records.ndjson: one analyze record per line, appended as each dump finishes so `tail -f` shows
// progress and an interrupted run keeps every complete record. Reading is streamed line by line:
// a batch of thousands of dumps never sits in memory at once.
import { createReadStream, existsSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
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
  if (!existsSync(path)) return;
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      options.onBadLine?.(lineNumber, (error as Error).message);
      continue;
    }
    if (!isRecordLike(value)) {
      options.onBadLine?.(lineNumber, 'not an analyze record (no file/sha256)');
      continue;
    }
    yield upgradeRecord(value);
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
 * Appends records, one `write` per line, in the order `append` is called. Writes are chained so
 * two workers finishing together cannot interleave bytes of their lines.
 */
export class RecordAppender {
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(private readonly handle: FileHandle) {}

  static async open(path: string): Promise<RecordAppender> {
    const handle = await open(path, 'a+', 0o644);
    // A run killed mid-write can leave a torn last line; start on a fresh line so the next
    // record is not glued to it (readRecords skips the torn one).
    const { size } = await handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) await handle.write('\n');
    }
    return new RecordAppender(handle);
  }

  append(record: AnalyzeDumpRecord): Promise<void> {
    if (this.closed) return Promise.reject(new Error('record file already closed'));
    const line = `${JSON.stringify(record)}\n`;
    this.chain = this.chain.then(async () => {
      await this.handle.write(line);
    });
    return this.chain;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.chain.catch(() => undefined);
    await this.handle.close();
  }
}
