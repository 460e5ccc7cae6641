// The package's own name and version, read once from its package.json at run time so the version
// is written in one place only. Found by walking up from this file: src/ under tsx, dist/src/
// when built, node_modules/cdb-harness/dist/src/ when installed.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PackageInfo {
  name: string;
  version: string;
  /** The folder holding package.json (the package root). */
  root: string;
}

let cached: PackageInfo | undefined;

export function packageInfo(): PackageInfo {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    try {
      const parsed = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (parsed.name === 'cdb-harness' && typeof parsed.version === 'string') {
        cached = { name: parsed.name, version: parsed.version, root: dir };
        return cached;
      }
    } catch {
      // no package.json here (or not ours): go up
    }
    dir = dirname(dir);
  }
  // Only a broken install gets here; a version string is still better than a crash in --version.
  cached = { name: 'cdb-harness', version: '0.0.0-unknown', root: dir };
  return cached;
}
