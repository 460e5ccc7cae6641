// File names as the file system has them. On Linux a name is bytes, not text: a dump called
// `bad\xff\xfe.dmp` (written by a program using another encoding) is a file like any other, but
// Node decodes names as UTF-8 by default and the invalid bytes become U+FFFD, a name that opens
// nothing (ENOENT). So a path that is not valid UTF-8 is carried as a Buffer (Node's fs takes
// Buffer paths, https://nodejs.org/api/fs.html#buffer-api) from the folder scan to the open, and
// everything else stays a plain string. Records show the name as text with U+FFFD for the bytes
// that are not UTF-8 (what `ls --quoting-style=literal` and Node show) and carry the exact bytes
// beside it (`fileBytes`, base64) so scripts can still reach the file.
import { join } from 'node:path';

/** A path to a file: text when its bytes are valid UTF-8, the bytes themselves when not. */
export type BytePath = string | Buffer;

/** The bytes as a path: a string when they are valid UTF-8 (most names), else the Buffer. */
export function bytePathOf(bytes: Buffer): BytePath {
  const text = bytes.toString('utf8');
  return Buffer.from(text).equals(bytes) ? text : bytes;
}

/** The path for people: invalid UTF-8 bytes shown as U+FFFD (the bytes are in `pathBytes64`). */
export function pathText(path: BytePath): string {
  return typeof path === 'string' ? path : path.toString('utf8');
}

/** base64 of the exact bytes of a path that is not valid UTF-8; undefined for a text path. */
export function pathBytes64(path: BytePath): string | undefined {
  return typeof path === 'string' ? undefined : path.toString('base64');
}

/** The path back from a record's `file` and `fileBytes` (what a script or `--resume` does). */
export function pathFromRecord(record: { file: string; fileBytes?: string }): BytePath {
  return record.fileBytes === undefined
    ? record.file
    : bytePathOf(Buffer.from(record.fileBytes, 'base64'));
}

/** `dir` + `/` + `name` (path.join for text), in bytes when either is not text. */
export function joinBytePath(dir: BytePath, name: BytePath): BytePath {
  if (typeof dir === 'string' && typeof name === 'string') return join(dir, name);
  const head = Buffer.from(dir);
  const glue = head.at(-1) === 0x2f ? [] : [Buffer.from('/')];
  return bytePathOf(Buffer.concat([head, ...glue, Buffer.from(name)]));
}

/** The last segment of a path (its file name), in bytes when the path is bytes. */
export function baseNameOf(path: BytePath): BytePath {
  if (typeof path === 'string') return path.slice(path.lastIndexOf('/') + 1);
  return bytePathOf(path.subarray(path.lastIndexOf(0x2f) + 1));
}

/** A key that tells two paths apart exactly (two bad names can read the same as text). */
export function pathKey(path: BytePath): string {
  return Buffer.from(path).toString('hex');
}

/** Byte order, the order `ls` uses under LC_ALL=C: the same for text and byte paths. */
export function compareBytePaths(a: BytePath, b: BytePath): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
