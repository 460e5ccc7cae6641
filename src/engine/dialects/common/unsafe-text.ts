// Shared checks for text that ends up on a debugger command line.
import { UnsafeArgumentError } from '../../../errors.js';

// Any C0 control or DEL: a newline would end the command early, and Ctrl-C/Ctrl-B act on the
// debugger itself.
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const CONTROL_RE = /[\u0000-\u001f\u007f]/;
// Anything outside printable ASCII.
const NON_ASCII_RE = /[^\u0020-\u007e]/;

export function refuseControlChars(what: string, text: string): void {
  if (CONTROL_RE.test(text)) {
    throw new UnsafeArgumentError(
      `${what} contains a control character (newline, tab, Ctrl-…), which cannot be passed to the debugger safely: ${JSON.stringify(text)}`,
    );
  }
}

export function refuseNonAscii(what: string, text: string): void {
  if (NON_ASCII_RE.test(text)) {
    throw new UnsafeArgumentError(
      `${what} contains non-ASCII characters, which the debugger may not read back intact: ${JSON.stringify(text)}. Use a path made of [A-Za-z0-9._-] and separators.`,
    );
  }
}

export function refuseChars(what: string, text: string, chars: readonly string[]): void {
  for (const c of chars) {
    if (text.includes(c)) {
      throw new UnsafeArgumentError(
        `${what} contains ${JSON.stringify(c)}, which cannot be passed to the debugger safely: ${JSON.stringify(text)}`,
      );
    }
  }
}

/** A command must be one non-empty line: an empty line repeats the last command in winedbg. */
export function refuseBadCommand(command: string): void {
  if (command.trim().length === 0) {
    throw new UnsafeArgumentError(
      'Refusing to send an empty command: debuggers repeat the previous command on an empty line (a stray Enter after `cont` resumes the target).',
      { command },
    );
  }
  if (/[\r\n]/.test(command)) {
    throw new UnsafeArgumentError('A debugger command must be a single line.', { command });
  }
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(command)) {
    throw new UnsafeArgumentError(
      'A debugger command must not contain control characters (Ctrl-C would break in).',
      { command },
    );
  }
}
