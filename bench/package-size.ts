// The installed size of the npm package, as a user gets it: `npm pack` of a built checkout, then
// `npm install TARBALL` into an empty folder, with and without the optional node-pty
// (--omit=optional), never with the queue's optional peers (bullmq, ioredis). Prints the bytes
// on disk of node_modules and the largest packages in it. Goals (issue 29): at most 35 MB with
// node-pty, 12 MB without it. `--repo DIR` measures another checkout (built, e.g. an older
// commit in a git worktree) beside this one, for a side-by-side figure.
//   npm run build && node --import tsx bench/package-size.ts [--repo OTHER_CHECKOUT]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/helpers/wine.js';

const MB = 1024 * 1024;
const args = process.argv.slice(2);
const repoAt = args.indexOf('--repo');
const repos = [REPO_ROOT, ...(repoAt >= 0 && args[repoAt + 1] ? [args[repoAt + 1]!] : [])];

/** Bytes on disk under a folder (file blocks, as du counts them). */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).blocks * 512;
  }
  return total;
}

/** The top-level packages of node_modules (scopes opened), largest first. */
function largest(modules: string, count: number): string[] {
  const sizes: [string, number][] = [];
  for (const name of readdirSync(modules)) {
    if (name.startsWith('.')) continue;
    const names = name.startsWith('@')
      ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`)
      : [name];
    for (const pkg of names) sizes.push([pkg, treeBytes(join(modules, pkg))]);
  }
  return sizes
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, bytes]) => `${name} ${(bytes / MB).toFixed(1)} MB`);
}

const work = mkdtempSync(join(tmpdir(), 'cdbh-size-'));
try {
  for (const repo of repos) {
    const packed = execFileSync(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', work],
      { cwd: repo, encoding: 'utf8' },
    );
    const info = JSON.parse(packed.slice(packed.indexOf('['))) as {
      filename: string;
      unpackedSize: number;
    }[];
    const tarball = join(work, info[0]!.filename);
    console.log(`${repo}: tarball unpacks to ${(info[0]!.unpackedSize / MB).toFixed(1)} MB`);
    for (const [label, extra] of [
      ['with node-pty', []],
      ['without node-pty (--omit=optional)', ['--omit=optional']],
    ] as const) {
      const app = join(work, `app-${String(Math.random()).slice(2)}`);
      mkdirSync(app);
      writeFileSync(join(app, 'package.json'), '{ "name": "size", "private": true }\n');
      execFileSync(
        'npm',
        ['install', '--prefer-offline', '--no-audit', '--no-fund', ...extra, tarball],
        { cwd: app, stdio: 'ignore' },
      );
      const modules = join(app, 'node_modules');
      console.log(
        `  ${label}: ${(treeBytes(modules) / MB).toFixed(1)} MB installed; largest: ${largest(modules, 4).join(', ')}`,
      );
    }
    rmSync(tarball);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
