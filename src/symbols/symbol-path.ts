// A symbol path read the way cdb and dbghelp read one
// (https://learn.microsoft.com/windows-hardware/drivers/debugger/symbol-path,
// https://learn.microsoft.com/windows/win32/debug/using-symsrv): `;`-separated elements, each a
// plain directory, `cache*DIR` (files found by the elements to its right are kept in DIR),
// `srv*[DOWNSTREAM*…]UPSTREAM` (a symbol store, local or `http(s)://`, with optional downstream
// caches), or `symsrv*symsrv.dll*…` (the long spelling of `srv*`). Prefixes are case-insensitive.
// The counterpart that writes a path for cdb is src/engine/dialects/symbol-path.ts.

export interface DirectoryElement {
  kind: 'directory';
  path: string;
  /** The cache*DIR in force for this element (undefined: none). */
  cache?: string;
}

export interface StoreElement {
  kind: 'store';
  /** Where files come from: an http(s) URL or a store directory. */
  upstream: string;
  /** Downstream stores, nearest first: looked in before upstream, and filled from it. */
  downstream: string[];
  /** True when the element named no downstream store (`srv*URL`): the default cache applies. */
  usesDefaultCache: boolean;
  cache?: string;
}

export type SymbolPathElement = DirectoryElement | StoreElement;

export interface ParsedSymbolPath {
  elements: SymbolPathElement[];
  /** Elements that were understood as something else or ignored, with the reason. */
  notes: string[];
}

export function isHttpLocation(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

/**
 * `defaultCache` fills an empty `cache*` and a `srv*` element with no downstream store (cdb uses
 * its install folder's `sym`; the caller decides ours).
 */
export function parseSymbolPath(text: string, defaultCache: string): ParsedSymbolPath {
  const elements: SymbolPathElement[] = [];
  const notes: string[] = [];
  let cache: string | undefined;
  for (const raw of text.split(';')) {
    const element = raw.trim();
    if (element.length === 0) continue;
    const parts = element.split('*').map((p) => p.trim());
    const head = (parts[0] ?? '').toLowerCase();
    if (parts.length === 1) {
      elements.push({
        kind: 'directory',
        path: element,
        ...(cache === undefined ? {} : { cache }),
      });
      continue;
    }
    if (head === 'cache') {
      cache = parts.slice(1).find((p) => p.length > 0) ?? defaultCache;
      continue;
    }
    let stores: string[];
    if (head === 'srv') {
      stores = parts.slice(1);
    } else if (head === 'symsrv') {
      // symsrv*symsrv.dll*DOWNSTREAM*UPSTREAM: the DLL name is only which store client to load.
      stores = parts.slice(2);
    } else {
      notes.push(`"${element}": unknown element prefix "${parts[0] ?? ''}*", skipped`);
      continue;
    }
    const named = stores.filter((s) => s.length > 0);
    const upstream = named.at(-1);
    if (upstream === undefined) {
      notes.push(`"${element}": no store named, skipped`);
      continue;
    }
    // srv**URL (an empty downstream) and srv*URL both mean "the default downstream store".
    const downstream = named.slice(0, -1);
    const usesDefaultCache = downstream.length === 0 && isHttpLocation(upstream);
    elements.push({
      kind: 'store',
      upstream,
      downstream: usesDefaultCache ? [cache ?? defaultCache] : downstream,
      usesDefaultCache,
      ...(cache === undefined ? {} : { cache }),
    });
  }
  return { elements, notes };
}

/**
 * The symbol path a command asked for: `--symbols`, else `--symbol-path`, else the environment
 * (`_NT_ALT_SYMBOL_PATH;_NT_SYMBOL_PATH`, as cdb reads them).
 */
export function chooseSymbolPath(
  symbols: string | undefined,
  symbolPath: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): { text: string; from: 'option' | '_NT_SYMBOL_PATH' } | undefined {
  const given = symbols ?? symbolPath;
  if (given !== undefined) return { text: given, from: 'option' };
  // dbghelp searches _NT_ALT_SYMBOL_PATH first, then _NT_SYMBOL_PATH.
  const fromEnv = [env['_NT_ALT_SYMBOL_PATH'], env['_NT_SYMBOL_PATH']]
    .filter((p): p is string => p !== undefined && p.trim().length > 0)
    .join(';');
  return fromEnv.length > 0 ? { text: fromEnv, from: '_NT_SYMBOL_PATH' } : undefined;
}
