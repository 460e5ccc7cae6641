// Shared by the symbol benchmarks (symbols-analyze.ts, symbols-hostile.ts), not a benchmark itself:
// the real crash dump of symcrash.exe (`libs`: ~10 modules) written by winedbg once and cached in
// build/bench/symbols-analyze/, so every later run reads the same file.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pdbTargetReady } from '../test/helpers/pdb-targets.js';
import { REPO_ROOT, wineRigReady } from '../test/helpers/wine.js';
import { dumpAtFirstChance } from '../test/minidump/helpers/real-dumps.js';

/** The cached symcrash dump (made on first use) and the folder it is cached in. */
export async function symcrashLibsDump(): Promise<{ benchDir: string; source: string }> {
  const benchDir = join(REPO_ROOT, 'build', 'bench', 'symbols-analyze');
  // winedbg's dump names the image by the checkout it ran from (Z:\<checkout>\build\targets\…)
  // and carries no CodeView record, so the symbols run needs that image at that path: one cached
  // dump per checkout (build/ is shared by worktrees; a removed worktree's dump finds no image).
  const checkout = createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 8);
  const source = join(benchDir, `symcrash-libs-${checkout}.dmp`);
  if (!existsSync(source)) {
    if (!wineRigReady() || !pdbTargetReady('symcrash')) {
      throw new Error('run `npm run setup` (Wine prefix, test programs, PDB test programs) first');
    }
    mkdirSync(benchDir, { recursive: true });
    const made = await dumpAtFirstChance('symcrash', ['libs'], 'symcrash-libs.dmp');
    copyFileSync(made.path, source);
  }
  return { benchDir, source };
}
