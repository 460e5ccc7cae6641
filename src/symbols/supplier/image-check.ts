// A fetched image is kept only when it is the image asked for: a server that answers every GET
// with the same bytes must not leave them in the cache under every image's name.
import { parsePeHeaders } from '../../common/pe-headers.js';
import { BadSymbolsError } from '../../errors.js';
import { PositionedFileReader } from '../../minidump/file-reader.js';

/**
 * Throws BadSymbolsError unless the file at `path` is a PE image whose TimeDateStamp and
 * SizeOfImage are the key it was fetched under (`name/TIMESTAMPSIZE/name`, the symbol-server
 * key of an image: https://learn.microsoft.com/en-us/windows-hardware/drivers/debugger/symbol-store-folder-tree).
 */
export async function checkImage(path: string, url: string, relative: string): Promise<void> {
  const wanted = relative.split('/').at(-2)?.toLowerCase() ?? '';
  const reader = await PositionedFileReader.open(path);
  let found: string;
  try {
    const headers = await parsePeHeaders({ read: (offset, length) => reader.read(offset, length) });
    found = typeof headers === 'string' ? headers : headers.codeId.toLowerCase();
    if (typeof headers !== 'string' && found === wanted) return;
  } finally {
    await reader.close();
  }
  throw new BadSymbolsError(
    url,
    `${url}: not the image asked for (${/^[0-9a-f]+$/.test(found) ? `its key is ${found}` : found}; wanted ${wanted}): not kept`,
  );
}
