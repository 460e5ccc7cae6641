// The bucket of a dump, one way for every job: the processor walks the dump (the exception
// thread, names from symbol files and export tables), builtin-record.ts makes the record's
// exception and frames, and the analyze signer (report/analyze/signature.ts) signs them. `analyze
// --engine builtin` and `watch` (for each dump it writes) both come here, so the bucket `watch`
// logs for a dump is the bucket `analyze` gives the same dump with the same symbols and images;
// the images and symbol files used travel with it, so a different bucket elsewhere is explained.
import { processDump } from '../../processor/process-dump.js';
import type { ModuleSymbolStatus } from '../../processor/process-state.js';
import type { AnalyzeBucketRef, AnalyzeDumpRecord } from '../../report/analyze/analyze-record.js';
import { createSigner, type Signer } from '../../report/analyze/signature.js';
import type { ListEdits } from '../../report/analyze/signature-lists.js';
import type { SymbolSupplier } from '../../symbols/supplier/symbol-supplier.js';
import { builtinFields } from './builtin-record.js';

export interface DumpBucketOptions {
  /** Symbol files and images (symbol-supplier.ts). */
  supplier?: SymbolSupplier;
  /** analyze's --skip-modules list (added to the built-in one). */
  skipModules?: readonly string[];
  /** analyze's --signature-lists (added to the built-in lists). */
  signatureLists?: ListEdits;
  signal?: AbortSignal;
}

export interface DumpBucket {
  bucket: AnalyzeBucketRef | null;
  /** Where each module image used by the walk was found (`dump`, a path, `not found`). */
  images?: Record<string, string>;
  /** Per module a frame lands in: its symbol files, or why none. */
  symbols?: ModuleSymbolStatus[];
  /** Why there is no bucket (the dump cannot be read). */
  error?: string;
}

/**
 * The analyze signer for these options: one algorithm whatever symbols the supplier has (named
 * and offset frames are two renderings the signature text itself tells apart).
 */
export function dumpSigner(
  options: Pick<DumpBucketOptions, 'skipModules' | 'signatureLists'>,
): Signer {
  return createSigner({
    ...(options.skipModules === undefined ? {} : { skipModules: options.skipModules }),
    ...(options.signatureLists === undefined ? {} : { lists: [options.signatureLists] }),
  });
}

/**
 * A stack cut by the time budget depends on the machine's load, not on the dump: its record is
 * marked (walkCut) and forms no bucket (null, as a truncated dump's), rather than a bucket of
 * its own. A cut by the read budget is the same on every run and is bucketed.
 */
export function bucketUnlessCut(
  record: Pick<AnalyzeDumpRecord, 'exception' | 'frames' | 'clrException' | 'walkCut'>,
  signer: Signer,
): AnalyzeBucketRef | null {
  return record.walkCut === 'time' ? null : signer.sign(record);
}

export async function bucketOfDump(
  path: string,
  options: DumpBucketOptions = {},
): Promise<DumpBucket> {
  const state = await processDump(path, {
    threads: 'exception',
    streams: 'triage',
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.supplier === undefined ? {} : { supplier: options.supplier }),
  });
  if (!state.ok) return { bucket: null, error: state.error.message };
  const fields = builtinFields(state);
  const bucket = bucketUnlessCut(fields, dumpSigner(options));
  return {
    bucket,
    ...(state.images === undefined ? {} : { images: state.images }),
    ...(state.symbols === undefined ? {} : { symbols: state.symbols }),
  };
}
