// A failed system call as the user should read it. Node's own text for one is the C library's
// word and the call (`ENOTDIR: not a directory, open 'afile/x.dmp'`, `EISDIR: illegal operation
// on a directory, read` with no path at all), which says neither what the harness was doing nor
// what to do. Here each code gets words, and the ones a user can act on get the action:
// `cannot open afile/x.dmp: a part of the path is a file, not a folder (ENOTDIR)`. Records keep
// the code in the message; the error family's code for all of them is `IO` (errors.ts).
// Codes: https://nodejs.org/api/errors.html#common-system-errors and errno(3).

/** The fields Node puts on an error from a system call (fs, net, child_process). */
export interface SystemError {
  code: string;
  syscall?: string;
  path?: string;
  dest?: string;
}

const WORDS: Record<string, { words: string; advice?: string }> = {
  EACCES: { words: 'permission denied', advice: 'check its permissions and owner' },
  EPERM: { words: 'operation not permitted', advice: 'check its permissions and owner' },
  ENOENT: { words: 'no such file or folder' },
  ENOTDIR: { words: 'a part of the path is a file, not a folder' },
  EISDIR: { words: 'it is a folder, not a file' },
  ELOOP: { words: 'too many symbolic links (a link that points back at itself?)' },
  ENAMETOOLONG: { words: 'the name is too long' },
  EEXIST: { words: 'something is already there' },
  ENOTEMPTY: { words: 'the folder is not empty' },
  ENOSPC: { words: 'no space left on the device', advice: 'free some space or write elsewhere' },
  EDQUOT: { words: 'disk quota exceeded', advice: 'free some space or write elsewhere' },
  EFBIG: { words: 'the file is too large for this file system' },
  EROFS: { words: 'read-only file system', advice: 'write elsewhere' },
  EMFILE: {
    words: 'too many open files in this process',
    advice: 'raise the limit (ulimit -n) or run fewer --jobs',
  },
  ENFILE: { words: 'too many open files on this system', advice: 'close other programs' },
  ENXIO: { words: 'no such device (a FIFO with nobody at the other end, or a socket)' },
  EIO: { words: 'input/output error (the disk or the network share failed)' },
  EBUSY: { words: 'busy (in use by another program)' },
  ETXTBSY: { words: 'busy (a program running from it)' },
  EAGAIN: { words: 'temporarily unavailable', advice: 'try again' },
  EINVAL: { words: 'invalid for this kind of file' },
  EXDEV: { words: 'on another file system' },
};

// The code Node gives a system error: `ENOTDIR`, `EMFILE`.
const CODE_RE = /^E[A-Z0-9]+$/;

/** The system-call fields of `error`, or null when it is not an error from a system call. */
export function systemErrorOf(error: unknown): SystemError | null {
  if (!(error instanceof Error)) return null;
  const fields = error as Error & Partial<Record<keyof SystemError, unknown>>;
  if (typeof fields.code !== 'string' || !CODE_RE.test(fields.code)) return null;
  if (typeof fields.syscall !== 'string') return null;
  return {
    code: fields.code,
    syscall: fields.syscall,
    ...(typeof fields.path === 'string' ? { path: fields.path } : {}),
    ...(typeof fields.dest === 'string' ? { dest: fields.dest } : {}),
  };
}

/** What went wrong, without the path: `a part of the path is a file, not a folder (ENOTDIR)`. */
export function systemReason(error: SystemError): string {
  const known = WORDS[error.code];
  const words = known === undefined ? error.code : `${known.words} (${error.code})`;
  return known?.advice === undefined ? words : `${words}; ${known.advice}`;
}

// Verbs for the calls a user would not recognise by their C name.
const VERBS: Record<string, string> = {
  mkdir: 'create',
  mkdtemp: 'create',
  scandir: 'list',
  opendir: 'list',
  lstat: 'look at',
  stat: 'look at',
  fstat: 'look at',
  realpath: 'resolve',
  unlink: 'remove',
  rmdir: 'remove',
  rm: 'remove',
  copyfile: 'copy',
  symlink: 'link',
  spawn: 'start',
};

/** The whole line: `cannot open afile/x.dmp: a part of the path is a file, not a folder (ENOTDIR)`. */
export function systemErrorLine(error: SystemError): string {
  const verb = VERBS[error.syscall ?? ''] ?? error.syscall ?? 'use';
  const what = error.path === undefined ? '' : ` ${error.path}`;
  const to = error.dest === undefined ? '' : ` to ${error.dest}`;
  return `cannot ${verb}${what}${to}: ${systemReason(error)}`;
}
