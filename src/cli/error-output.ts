// The one error prefix of the CLI, in a module that loads nothing: main.ts needs it before (and
// often without) loading commander or any command (start-up time, bench/cli-start.ts).

/** Every error line the CLI prints starts with this (commander's own usage errors too). */
export const ERROR_PREFIX = 'cdb-harness: ';

/** commander's `error: unknown option …` re-prefixed like every other error we print. */
export function writeCommanderError(text: string, write: (text: string) => void): void {
  write(text.replace(/^error: /, ERROR_PREFIX));
}

/** Prints one error line with the shared prefix (multi-line messages keep their layout). */
export function printError(error: unknown): void {
  process.stderr.write(`${ERROR_PREFIX}${errorLine(error)}\n`);
}

// EACCES: permission denied, open 'RO/records.ndjson'
const RAW_FS_MESSAGE_RE = /^E[A-Z]+: [^,]+, \w+ '/;

const FS_WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
  ENOENT: 'no such file or folder',
};

/**
 * The one line for an error that reached the CLI's edge: a harness error's message as it is; a
 * raw Node file-system error (`EACCES: permission denied, open 'RO/records.ndjson'`) as
 * `cannot open RO/records.ndjson: permission denied (EACCES)`.
 */
export function errorLine(error: unknown): string {
  const fs = error as { code?: unknown; path?: unknown; syscall?: unknown; message?: unknown };
  if (
    error instanceof Error &&
    typeof fs.code === 'string' &&
    typeof fs.path === 'string' &&
    RAW_FS_MESSAGE_RE.test(error.message)
  ) {
    const verb = fs.syscall === 'mkdir' ? 'create' : String(fs.syscall);
    return `cannot ${verb} ${fs.path}: ${FS_WORDS[fs.code] ?? fs.code} (${fs.code})`;
  }
  return error instanceof Error ? error.message : String(error);
}
