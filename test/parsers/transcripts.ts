// The transcript corpus as tests see it: every file under test/fixtures/transcripts, split into
// its 5-line header and body.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRANSCRIPTS_DIR } from '../helpers/transcripts-dir.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export { TRANSCRIPTS_DIR };

export interface Transcript {
  /** `events/clr-e0434352-first-and-second-chance-net8-x64.txt` */
  name: string;
  /** The `# command:` header line. */
  command: string;
  body: string;
}

/** Splits a file with the `# source/# tool/# command/# notes/# ---` header. */
export function readTranscriptFile(path: string, name: string): Transcript {
  const lines = readFileSync(path, 'utf8').split('\n');
  const end = lines.findIndex((line) => /^# ---\s*$/.test(line));
  const header = lines.slice(0, Math.max(end, 0));
  const command =
    header.find((l) => l.startsWith('# command: '))?.slice('# command: '.length) ?? '';
  return { name, command: command.trim(), body: lines.slice(end + 1).join('\n') };
}

export function listTranscripts(dir: string = TRANSCRIPTS_DIR): Transcript[] {
  const out: Transcript[] = [];
  for (const sub of readdirSync(dir, { withFileTypes: true })) {
    if (!sub.isDirectory()) continue;
    for (const file of readdirSync(join(dir, sub.name)).sort()) {
      if (!file.endsWith('.txt')) continue;
      out.push(readTranscriptFile(join(dir, sub.name, file), `${sub.name}/${file}`));
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** One transcript by name (`misc/kc-x64-call-site-only.txt`). */
export function transcript(name: string): Transcript {
  return readTranscriptFile(join(TRANSCRIPTS_DIR, name), name);
}

export const WINEDBG_FIXTURES_DIR = join(REPO_ROOT, 'test', 'parsers', 'fixtures', 'winedbg');

/** One of our own winedbg captures (same header format). */
export function winedbgFixture(file: string): Transcript {
  return readTranscriptFile(join(WINEDBG_FIXTURES_DIR, file), `winedbg/${file}`);
}
