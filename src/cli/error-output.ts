// The one error prefix of the CLI, in a module that loads nothing: main.ts needs it before (and
// often without) loading commander or any command (start-up time, bench/cli-start.ts); only the
// error family, for the words of a failed system call.
import { errorMessage } from '../errors.js';

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

/**
 * The one line for an error that reached the CLI's edge: a harness error's message as it is; a
 * raw Node system error (`EACCES: permission denied, open 'RO/records.ndjson'`) as
 * `cannot open RO/records.ndjson: permission denied (EACCES); check its permissions and owner`
 * (errorMessage, ../system-errors.ts).
 */
export function errorLine(error: unknown): string {
  return errorMessage(error);
}
