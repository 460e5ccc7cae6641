// Builds a cdb symbol path: `C:\sym;cache*C:\cache;srv*https://msdl.microsoft.com/download/symbols`.
// Each element is refused if it could change the path's meaning: `;` separates elements, `*`
// separates the parts of a `srv*`/`cache*` element, quotes and newlines break the command line.
import { UnsafeArgumentError } from '../../../errors.js';

export const MICROSOFT_SYMBOL_SERVER = 'https://msdl.microsoft.com/download/symbols';

export interface SymbolPathOptions {
  /** Plain directories searched first. */
  local?: readonly string[];
  /** A downstream cache for symbol-server files (`cache*DIR`). */
  cacheDir?: string;
  /** Symbol server URLs or store directories (`srv*URL`). */
  servers?: readonly string[];
}

function checkElement(what: string, value: string): void {
  if (value.length === 0) throw new UnsafeArgumentError(`The ${what} in a symbol path is empty.`);
  // `;` ends the element, `*` splits srv*/cache* parts, `"` breaks quoting, newlines end commands.
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  const bad = /[;*"\r\n\u0000-\u001f]/.exec(value);
  if (bad) {
    throw new UnsafeArgumentError(
      `The ${what} ${JSON.stringify(value)} contains ${JSON.stringify(bad[0])}, which cannot appear in a symbol path element.`,
    );
  }
}

export function buildSymbolPath(options: SymbolPathOptions): string {
  const parts: string[] = [];
  for (const dir of options.local ?? []) {
    checkElement('local directory', dir);
    parts.push(dir);
  }
  if (options.cacheDir !== undefined) {
    checkElement('cache directory', options.cacheDir);
    parts.push(`cache*${options.cacheDir}`);
  }
  for (const server of options.servers ?? []) {
    checkElement('symbol server', server);
    parts.push(`srv*${server}`);
  }
  if (parts.length === 0) {
    throw new UnsafeArgumentError('A symbol path needs at least one element.');
  }
  return parts.join(';');
}
