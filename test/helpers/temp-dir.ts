// Temporary folders for tests: makeTempDir('watch') -> <tmp>/cdbh-watch-XXXXXX. Every folder made
// here is removed after the run by the root hook in test/hooks/temp-dirs.ts (.mocharc.json loads
// it), which also fails the run when anything else was left in the temp folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// One list per process: mocha may load this file twice, once for the root hook (`require`) and
// once for the test files (`import`), as two module instances.
const REGISTRY = Symbol.for('cdb-harness.test.temp-dirs');
const holder = globalThis as typeof globalThis & { [REGISTRY]?: Set<string> };
const made = (holder[REGISTRY] ??= new Set<string>());

export function makeTempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `cdbh-${label}-`));
  made.add(dir);
  return dir;
}

/** Removes every folder makeTempDir made (already removed ones are fine). */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
