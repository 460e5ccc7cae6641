// Running the cdb emulator (test/emulator/cdb-emulator.ts) as the debugger of a workflow.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/wine.js';
import { makeTempDir } from '../helpers/temp-dir.js';

export interface EmulatedCdb {
  prefix: { file: string; args: string[] };
  /** The emulator's state file: commands it read, how the session ended, target alive. */
  state(): {
    ended: string | null;
    targetAlive: boolean;
    detached: boolean;
    noninvasive?: boolean;
    commands: string[];
    dumps: string[];
    argv: string[];
  };
}

export function emulatedCdb(scenario: string): EmulatedCdb {
  const statePath = join(makeTempDir('emu'), 'state.json');
  return {
    prefix: {
      file: process.execPath,
      args: [
        '--import',
        'tsx',
        join(REPO_ROOT, 'test', 'emulator', 'cdb-emulator.ts'),
        '--scenario',
        join(REPO_ROOT, 'test', 'emulator', 'scenarios', scenario),
        '--state',
        statePath,
      ],
    },
    state: () => JSON.parse(readFileSync(statePath, 'utf8')) as ReturnType<EmulatedCdb['state']>,
  };
}
