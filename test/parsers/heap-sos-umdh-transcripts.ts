// Reads transcript bodies for the heap, SOS and umdh parser tests: the text after the 5-line
// `# source/# tool/# command/# notes/# ---` header of a file under shared/transcripts.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** `<repo>/../shared/transcripts`, or `CDB_HARNESS_TRANSCRIPTS` when set. */
export function transcriptsDir(): string {
  const fromEnv = process.env['CDB_HARNESS_TRANSCRIPTS'];
  if (fromEnv !== undefined && fromEnv !== '') return resolve(fromEnv);
  return resolve(HERE, '..', '..', '..', 'shared', 'transcripts');
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
