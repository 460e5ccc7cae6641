// A path typed on the command line whose name is not valid UTF-8 never reaches us whole: Node
// decodes argv as UTF-8 on Linux and each invalid byte becomes U+FFFD (`bad\xff\xfe.dmp` arrives
// as "bad\uFFFD\uFFFD.dmp", a name that opens nothing). The bytes are gone, but the folder still
// has them: a segment with U+FFFD that does not exist as written is matched against the folder's
// names read as bytes, decoded the same way. One match is the file; none or several (two names
// that differ only in their invalid bytes read the same) leave the path as given, with a reason
// that says what works: `analyze FOLDER`, whose scan reads names as bytes.
import { lstat, readdir } from 'node:fs/promises';
import { bytePathOf, joinBytePath, type BytePath } from '../common/byte-path.js';

const REPLACEMENT = '\uFFFD';

export interface ArgvPath {
  path: BytePath;
  /** Set when the name had U+FFFD and could not be matched to one file: why, for the message. */
  unresolved?: string;
}

/** `absolute` (an absolute path from argv) as the file system spells it. */
export async function pathFromArgv(absolute: string): Promise<ArgvPath> {
  if (!absolute.includes(REPLACEMENT)) return { path: absolute };
  if (await exists(absolute)) return { path: absolute };
  const segments = absolute.split('/');
  let current: BytePath = segments[0] === '' ? '/' : (segments[0] ?? '');
  for (const segment of segments.slice(1)) {
    if (segment === '') continue;
    if (!segment.includes(REPLACEMENT)) {
      current = joinBytePath(current, segment);
      continue;
    }
    const names = await readdir(current, { encoding: 'buffer' }).catch(() => [] as Buffer[]);
    const matches = names.filter((name) => name.toString('utf8') === segment);
    if (matches.length !== 1) {
      return {
        path: absolute,
        unresolved:
          matches.length === 0
            ? `"${segment}" had bytes that are not UTF-8, lost on the command line (U+FFFD), and no name in its folder matches; analyze FOLDER reads names as bytes`
            : `${matches.length} names in its folder read as "${segment}" (they differ in bytes that are not UTF-8, lost on the command line); analyze FOLDER reads names as bytes`,
      };
    }
    current = joinBytePath(current, bytePathOf(matches[0] as Buffer));
  }
  return { path: current };
}

async function exists(path: BytePath): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
