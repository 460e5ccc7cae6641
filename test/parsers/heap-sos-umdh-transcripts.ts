// Reads transcript bodies for the heap, SOS and umdh parser tests: the text after the 5-line
// `# source/# tool/# command/# notes/# ---` header of a file under test/fixtures/transcripts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRANSCRIPTS_DIR } from '../helpers/transcripts-dir.js';

/** test/fixtures/transcripts. */
export function transcriptsDir(): string {
  return TRANSCRIPTS_DIR;
}

/** The body of `relativePath` (e.g. `heap-s/onecode-xp-era-x86-fast-heap-L.txt`), as stored. */
export function transcriptBody(relativePath: string): string {
  const text = readFileSync(join(transcriptsDir(), relativePath), 'utf8');
  const lines = text.split('\n');
  const end = lines.findIndex((line) => line.startsWith('# ---'));
  if (end === -1) throw new Error(`${relativePath}: no '# ---' header end`);
  return lines.slice(end + 1).join('\n');
}

/** The body's lines, for feeding a streaming parser one line at a time. */
export function transcriptLines(relativePath: string): string[] {
  return transcriptBody(relativePath).split('\n');
}

/** Files of one transcript folder whose names match `filter` (all when omitted), sorted. */
export function transcriptFiles(folder: string, filter: RegExp = /\.txt$/): string[] {
  return readdirSync(join(transcriptsDir(), folder))
    .filter((name) => filter.test(name))
    .sort()
    .map((name) => `${folder}/${name}`);
}

/**
 * The transcripts of `folder` that the test file at `testFileUrl` never names: each transcript
 * should have a test of its own. Read from the test's source, so the check does not depend on
 * which tests ran before it (`mocha --grep` runs it alone).
 */
export function untestedTranscripts(testFileUrl: string, folder: string): string[] {
  const source = readFileSync(fileURLToPath(testFileUrl), 'utf8');
  return transcriptFiles(folder).filter((file) => !source.includes(`'${file}'`));
}
