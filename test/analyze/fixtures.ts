// Dumps for the analyze tests: the cached real dumps of the Wine rig when it is there, else the
// committed examples/dumps (written by the same rig). Either way every byte came from winedbg.
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { realDump, type DumpKind } from '../helpers/dump-factory.js';
import { REPO_ROOT, wineRigReady } from '../helpers/wine.js';
import type { AnalyzeDumpRecord, AnalyzeSummary } from '../../src/report/analyze/analyze-record.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');

const EXAMPLE_FOR: Record<DumpKind, string | undefined> = {
  'av-write': 'av-write-a.dmp',
  'av-read': undefined,
  'clr-raise': 'clr-raise.dmp',
  'cpp-throw': 'cpp-throw.dmp',
  'attach-break': 'attach-break.dmp',
  'inline-call': undefined,
  'inline-top': undefined,
  'inline-method': undefined,
};

/** A real dump of `kind` (copy 2 = a second run of the same crash). */
export async function dumpOf(kind: DumpKind, copy = 1): Promise<string> {
  if (wineRigReady()) return realDump(kind, copy);
  const name = kind === 'av-write' && copy === 2 ? 'av-write-b.dmp' : EXAMPLE_FOR[kind];
  if (name === undefined || !existsSync(join(EXAMPLES, name))) {
    throw new Error(`no ${kind} dump: run npm run setup (Wine rig) or keep examples/dumps`);
  }
  return join(EXAMPLES, name);
}

export function tempDir(label: string): string {
  return makeTempDir(`analyze-${label}`);
}

/** Copies dumps into a fresh folder under their given names; returns the folder. */
export async function folderWith(files: Record<string, string>): Promise<string> {
  const dir = tempDir('in');
  for (const [name, source] of Object.entries(files)) await copyFile(source, join(dir, name));
  return dir;
}

/** The files a broken upload leaves: empty, cut short, noise, text named .dmp. */
export async function addCorruptInputs(dir: string, realDumpPath: string): Promise<string[]> {
  const bytes = readFileSync(realDumpPath);
  const files = {
    'empty.dmp': Buffer.alloc(0),
    // Header and part of the directory only: the streams point past the end of the file.
    'truncated.dmp': bytes.subarray(0, 200),
    'random.dmp': Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24)),
    'notes.dmp': Buffer.from('this is not a dump\n'),
  };
  for (const [name, data] of Object.entries(files)) await writeFile(join(dir, name), data);
  return Object.keys(files).map((name) => join(dir, name));
}

export function readNdjson(path: string): AnalyzeDumpRecord[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AnalyzeDumpRecord);
}

export function readSummary(dir: string): AnalyzeSummary {
  return JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as AnalyzeSummary;
}

export function byName(records: readonly AnalyzeDumpRecord[], name: string): AnalyzeDumpRecord {
  const found = records.find((r) => r.file.endsWith(`/${name}`));
  if (!found) throw new Error(`no record for ${name}`);
  return found;
}
