// The clang + lld test programs with real PDBs (scripts/build-pdb-targets.sh), and where their
// source says things happen: tests find lines by the markers in the source, never by numbers.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, TARGETS_DIR } from './wine.js';

export const PDB_SOURCES = join(REPO_ROOT, 'test', 'targets', 'pdb');

export function pdbTargetReady(name: string): boolean {
  return (
    existsSync(join(TARGETS_DIR, `${name}.exe`)) && existsSync(join(TARGETS_DIR, `${name}.pdb`))
  );
}

export function pdbPathOf(name: string): string {
  return join(TARGETS_DIR, `${name}.pdb`);
}

/** 1-based line of the first line containing `marker` in test/targets/pdb/<file>. */
export function markerLine(file: string, marker: string): number {
  const lines = readFileSync(join(PDB_SOURCES, file), 'utf8').split('\n');
  const index = lines.findIndex((l) => l.includes(marker));
  if (index < 0) throw new Error(`${marker} not in ${file}`);
  return index + 1;
}
