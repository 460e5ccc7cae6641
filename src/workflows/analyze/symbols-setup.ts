// The builtin engine's supplier for one run: the run's options (`--symbols`, else
// `_NT_SYMBOL_PATH` as cdb reads them; `--image-path`; `--wine-prefix`; the symbol limits) turned into the one
// SymbolSupplier shared by every dump of the batch (symbols/supplier/symbol-supplier.ts), and
// the line said when a symbol server is given up on. Light: `inspect` loads it at start-up.
import type { FetchLike } from '../../symbols/index.js';
import type { RedirectPolicy } from '../../symbols/redirect-policy.js';
import {
  createSymbolSupplier,
  type SymbolSupplier,
} from '../../symbols/supplier/symbol-supplier.js';

export interface BuiltinSymbolOptions {
  symbolPath?: string;
  /** False: images only (a debugger engine names the frames; the processor walks the baseline). */
  symbolFiles?: boolean;
  /** `--image-path` directories. */
  imagePaths?: readonly string[];
  /** `--wine-prefix`: where recorded `C:\` paths are looked up (none named: nowhere). */
  winePrefix?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Where `srv*URL` keeps downloads (default: XDG cache). */
  symbolCacheDir?: string;
  symbolFetch?: FetchLike;
  symbolDownloadTimeoutMs?: number;
  /** Largest symbol file downloaded or expanded from a cabinet (`--symbol-max-size`). */
  symbolMaxBytes?: number;
  /** Which redirects a symbol download follows (`--symbol-redirects`; default `https`). */
  symbolRedirects?: RedirectPolicy;
  /** Told once per symbol server given up on, with the reason (say it on stderr). */
  onSymbolServerDown?: (server: string, reason: string) => void;
}

/** The run's supplier, from the CLI's and the library's option names (close it at the end). */
export function builtinSupplier(options: BuiltinSymbolOptions): Promise<SymbolSupplier> {
  return createSymbolSupplier({
    ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
    ...(options.symbolFiles === undefined ? {} : { symbolFiles: options.symbolFiles }),
    ...(options.imagePaths === undefined ? {} : { imagePaths: options.imagePaths }),
    ...(options.winePrefix === undefined ? {} : { winePrefix: options.winePrefix }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.symbolCacheDir === undefined ? {} : { symbolCacheDir: options.symbolCacheDir }),
    ...(options.symbolFetch === undefined ? {} : { fetch: options.symbolFetch }),
    ...(options.symbolDownloadTimeoutMs === undefined
      ? {}
      : { downloadTimeoutMs: options.symbolDownloadTimeoutMs }),
    ...(options.symbolMaxBytes === undefined ? {} : { maxDownloadBytes: options.symbolMaxBytes }),
    ...(options.symbolRedirects === undefined ? {} : { redirects: options.symbolRedirects }),
    ...(options.onSymbolServerDown === undefined
      ? {}
      : { onServerDown: options.onSymbolServerDown }),
  });
}

/** The one stderr line a run prints for a symbol server it gave up on (inspect and analyze). */
export function symbolServerDownLine(server: string, reason: string): string {
  return `warning: symbol server ${server} failed: ${reason}; modules it would name stay unnamed (asked again after a minute)\n`;
}
