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
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${ERROR_PREFIX}${message}\n`);
}
