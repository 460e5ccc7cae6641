// Each triage command's reply, kept as it came under `OUT/raw/<first 12 of sha256>/NN-slug.txt`
// and named in the record's `rawOutputs`: what a parser made of it can always be checked against
// the text (a debugger session's replies, or a dotnet-dump batch's).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RawOutputRef } from '../../report/analyze/analyze-record.js';

/** `OUT/raw/<first 12 of sha256>/`: short, unique enough, and stable across runs. */
export function rawDirFor(sha256: string): string {
  return join('raw', sha256.slice(0, 12));
}

/** Makes the dump's raw folder; returns the writer of its files. */
export async function rawOutputWriter(
  outDir: string,
  sha256: string,
): Promise<(index: number, command: string, output: string) => Promise<RawOutputRef>> {
  const rawRel = rawDirFor(sha256);
  const rawAbs = join(outDir, rawRel);
  await mkdir(rawAbs, { recursive: true });
  return async (index, command, output) => {
    const name = `${String(index + 1).padStart(2, '0')}-${slug(command)}.txt`;
    await writeFile(join(rawAbs, name), output);
    return { command, path: `${rawRel}/${name}`.replace(/\\/g, '/') };
  };
}

/** `!analyze -v` → `analyze-v`; `.loadby sos clr` → `loadby-sos-clr`. File-name safe. */
function slug(command: string): string {
  const s = command
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return s === '' ? 'command' : s;
}
