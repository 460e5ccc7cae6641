// A cue file for a test program that waits for one (exiter, cpuburn, commitsteps under
// test/targets/): the program polls for the file and goes on once it exists, so a test releases
// it at the moment the CLI says it is watching.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from './temp-dir.js';

/** A cue file in a fresh temp folder: its Wine path (Z: maps /) and a way to pull it. */
export function cue(): { wine: string; pull(): void } {
  const path = join(makeTempDir('cue'), 'go.cue');
  return { wine: `Z:${path.replace(/\//g, '\\')}`, pull: () => writeFileSync(path, 'go') };
}
