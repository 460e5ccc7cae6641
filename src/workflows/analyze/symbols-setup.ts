// The builtin engine's symbols for one analyze run: the symbol path (`--symbols`, else
// `_NT_SYMBOL_PATH`, as cdb reads them) turned into one Symbolizer shared by every dump of the
// batch, and the signature flavour that goes with it.
import { readFile } from 'node:fs/promises';
import { NAMES_SUFFIX } from '../../report/analyze/signature.js';
import { chooseSymbolPath, type FetchLike } from '../../symbols/index.js';
import { defaultSymbolCache, Symbolizer } from '../../symbols/supplier/symbolizer.js';
import { outputFiles } from './outputs.js';

export interface BuiltinSymbolOptions {
  symbolPath?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Where `srv*URL` keeps downloads (default: XDG cache). */
  symbolCacheDir?: string;
  symbolFetch?: FetchLike;
  symbolDownloadTimeoutMs?: number;
  /** Largest symbol file downloaded or expanded from a cabinet (`--symbol-max-size`). */
  symbolMaxBytes?: number;
  /** Told once per symbol server given up on, with the reason (say it on stderr). */
  onSymbolServerDown?: (server: string, reason: string) => void;
}

/** A Symbolizer when a symbol path was given (option or environment), else undefined. */
export function builtinSymbolizer(options: BuiltinSymbolOptions): Symbolizer | undefined {
  const env = options.env ?? process.env;
  const chosen = chooseSymbolPath(options.symbolPath, undefined, env);
  if (chosen === undefined) return undefined;
  return new Symbolizer({
    symbolPath: chosen.text,
    defaultCache: options.symbolCacheDir ?? defaultSymbolCache(env),
    env,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.symbolFetch === undefined ? {} : { fetch: options.symbolFetch }),
    ...(options.symbolDownloadTimeoutMs === undefined
      ? {}
      : { downloadTimeoutMs: options.symbolDownloadTimeoutMs }),
    ...(options.symbolMaxBytes === undefined ? {} : { maxDownloadBytes: options.symbolMaxBytes }),
    ...(options.onSymbolServerDown === undefined
      ? {}
      : { onServerDown: options.onSymbolServerDown }),
  });
}

/** The one stderr line a run prints for a symbol server it gave up on (inspect and analyze). */
export function symbolServerDownLine(server: string, reason: string): string {
  return `warning: symbol server ${server} failed: ${reason}; modules it would name stay unnamed (asked again after a minute)\n`;
}

/** True when an output folder's records were bucketed with symbol-aware signatures. */
export async function outputsUseNames(dir: string): Promise<boolean> {
  try {
    const summary = JSON.parse(await readFile(outputFiles(dir).summary, 'utf8')) as {
      algorithm?: unknown;
    };
    return typeof summary.algorithm === 'string' && summary.algorithm.endsWith(NAMES_SUFFIX);
  } catch {
    return false;
  }
}
