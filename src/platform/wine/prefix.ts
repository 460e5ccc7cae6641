// The Wine prefix a Linux host's Windows processes live in, as Wine itself picks it: $WINEPREFIX,
// else ~/.wine (https://gitlab.winehq.org/wine/wine/-/wikis/Wine-User's-Guide#wineprefix).
// Any wine call on a prefix that does not exist creates it (wineboot, about 700 MB): a listing
// must never do that, so callers check first and say which prefix they looked at.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { TargetError } from '../../errors.js';

export function winePrefixOf(env: NodeJS.ProcessEnv): string {
  const given = env['WINEPREFIX'];
  if (given !== undefined && given !== '') return given.replace(/\/+$/, '');
  return join(env['HOME'] ?? homedir(), '.wine');
}

/** The prefix of `env`, or a TargetError when it does not exist (a wine call would create it). */
export function requireExistingPrefix(env: NodeJS.ProcessEnv): string {
  const prefix = winePrefixOf(env);
  if (!existsSync(join(prefix, 'system.reg'))) {
    throw new TargetError(
      'no-prefix',
      `the Wine prefix ${prefix} does not exist, so no Windows program runs in it (a Wine call would create a new one, about 700 MB, and nothing was run); set WINEPREFIX to the prefix the program runs in`,
    );
  }
  return prefix;
}
