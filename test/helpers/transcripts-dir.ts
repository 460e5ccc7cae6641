// Where the real debugger transcripts live: test/fixtures/transcripts, inside the repository, so
// a fresh clone runs every test on its own. test/fixtures/transcripts/INDEX.md lists each file's
// public source; every file starts with a 5-line `# source/# tool/# command/# notes/# ---` header.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TRANSCRIPTS_DIR = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'transcripts',
);
