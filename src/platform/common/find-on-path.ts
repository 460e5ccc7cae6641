// A program on PATH, the way this host's shell would find it: with the executable extensions on
// Windows (`cdb` finds cdb.exe), the name as it is elsewhere.
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { hostKind } from './host.js';

export function findOnPath(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  platform?: NodeJS.Platform,
): string | undefined {
  const dirs = (env['PATH'] ?? '').split(delimiter).filter((d) => d !== '');
  const exts = hostKind(platform) === 'windows' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}
