// A dump the batch could not even read (permissions, vanished, a fs error): that file's problem,
// written as its own failed record, never the batch's.
import { createHash } from 'node:crypto';
import type { AnalyzeDumpRecord } from '../../report/analyze/analyze-record.js';
import type { BytePath } from '../../common/byte-path.js';
import { emptyRecord } from './analyze-one.js';

/** Node's fs errors carry an `E…` code (`EACCES`, `ENOENT`, `EISDIR`). */
export function isNodeFsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) && code !== 'ERR_INTERNAL';
}

/**
 * A file we could not even read. Its record needs a sha256 for --resume and the schema; the hash
 * of `unreadable:<path>` stands in (it can never equal a real file's content hash by accident).
 */
export function ioFailure(
  path: BytePath,
  message: string,
  engine: AnalyzeDumpRecord['engine'],
): AnalyzeDumpRecord {
  const sha256 = createHash('sha256').update('unreadable:').update(Buffer.from(path)).digest('hex');
  return { ...emptyRecord(path, { sha256, size: 0 }, engine), error: { code: 'IO', message } };
}
