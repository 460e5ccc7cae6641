// A program on PATH, the way a shell would find it (used to tell whether winedbg is installed).
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { currentPlatform } from '../../../platform/common/host.js';

export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env['PATH'] ?? '').split(delimiter).filter((d) => d !== '');
  const exts = currentPlatform() === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}
