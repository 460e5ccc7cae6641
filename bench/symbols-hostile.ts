// Benchmark: symbol downloads bounded on hostile servers (issue 22). Two runs of
// `analyze --engine builtin --symbols srv*CACHE*http://127.0.0.1:PORT`, each in a child process:
//  1. 16 dumps (a real symcrash crash with ~10 modules, copied) against a server whose every body
//     never ends: each download streams to a .part file, is cut at the limit and deleted;
//  2. one dump against a server holding a cabinet bomb for the program's PDB (a ~1.8 MB `.pd_`
//     that expands to 1,000 MB): refused on its header (no PDB of a small module is that big).
// Printed per run: the child's peak RSS, the cache's peak size while it ran (sampled every 20 ms),
// what is left in the cache afterwards (files, .part files) and the reason the records give.
// Bounds from the issue: peak memory ≤ 300 MB, cache growth bounded by --symbol-max-size,
// nothing left behind. (Before the fix: 6.7-7.4 GB for run 1; a 1,000 MB file kept per module
// for run 2.)
//   node --import tsx bench/symbols-hostile.ts [--max-mb 64] [--jobs 16]
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PositionedFileReader } from '../src/minidump/file-reader.js';
import { readImageIdentity } from '../src/symbols/index.js';
import { writeCabBomb } from '../test/helpers/cab-writer.js';
import { pdbTargetReady } from '../test/helpers/pdb-targets.js';
import { startSymbolServer } from '../test/helpers/symbol-server.js';
import { REPO_ROOT, targetPath, wineRigReady } from '../test/helpers/wine.js';
import { dumpAtFirstChance } from '../test/minidump/helpers/real-dumps.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? Number(args[at + 1]) : fallback;
};
const MAX_BYTES = option('--max-mb', 64) * 1024 * 1024;
const JOBS = option('--jobs', 16);
const benchDir = join(REPO_ROOT, 'build', 'bench', 'symbols-analyze');
const source = join(benchDir, 'symcrash-libs.dmp');
if (!existsSync(source)) {
  if (!wineRigReady() || !pdbTargetReady('symcrash')) {
    throw new Error('run `npm run setup` (Wine prefix, test programs, PDB test programs) first');
  }
  mkdirSync(benchDir, { recursive: true });
  copyFileSync((await dumpAtFirstChance('symcrash', ['libs'], 'symcrash-libs.dmp')).path, source);
}

function files(dir: string): { path: string; size: number }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      try {
        return { path, size: statSync(path).size };
      } catch {
        return { path, size: 0 }; // renamed or deleted while we looked
      }
    });
}

async function run(label: string, dumps: number, mode: 'endless' | 'serve', store: string) {
  const work = mkdtempSync(join(tmpdir(), 'cdbh-bench-hostile-'));
  const server = await startSymbolServer(store, mode);
  try {
    const input = join(work, 'in');
    mkdirSync(input);
    // Wine's dumps carry no CodeView records: every copy's PDB identity comes from the one
    // image, so the 16 dumps wait on the same downloads (shared in flight) while they run.
    for (let i = 0; i < dumps; i++) copyFileSync(source, join(input, `d${i}.dmp`));
    const cache = join(work, 'cache');
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(
        peak,
        files(cache).reduce((n, f) => n + f.size, 0),
      );
    }, 20);
    const started = performance.now();
    let stdout: string;
    try {
      ({ stdout } = await promisify(execFile)(
        process.execPath,
        [
          '--import',
          'tsx',
          join(REPO_ROOT, 'bench', 'symbols-hostile-child.ts'),
          input,
          join(work, 'out'),
          `srv*${cache}*${server.url}`,
          String(MAX_BYTES),
          '60000',
          String(JOBS),
        ],
        { cwd: REPO_ROOT, maxBuffer: 1 << 20 },
      ));
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - started) / 1000;
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
      dumps: number;
      maxRssKb: number;
      serversDown: number;
      reason?: string;
    };
    const left = files(cache);
    console.log(
      `${label}: ${result.dumps} dumps, ${seconds.toFixed(1)} s, peak RSS ${(result.maxRssKb / 1024).toFixed(0)} MB, ` +
        `cache peak ${(peak / 1048576).toFixed(1)} MB (limit ${MAX_BYTES / 1048576} MB per file, ${JOBS} jobs), ` +
        `left in cache: ${left.length} files (${left.filter((f) => f.path.endsWith('.part')).length} .part), ` +
        `requests ${server.requests.length}`,
    );
    console.log(`  reason in the records: ${result.reason ?? '(none)'}`);
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

// 1. Bodies that never end.
const empty = mkdtempSync(join(tmpdir(), 'cdbh-bench-store-'));
await run('endless server', 16, 'endless', empty);
rmSync(empty, { recursive: true, force: true });

// 2. A cabinet bomb where the program's PDB should be.
const image = await PositionedFileReader.open(targetPath('symcrash'));
const debugId = (await readImageIdentity(image, 'symcrash.exe')).codeView?.debugId ?? '';
await image.close();
const bombStore = mkdtempSync(join(tmpdir(), 'cdbh-bench-bomb-'));
mkdirSync(join(bombStore, 'symcrash.pdb', debugId), { recursive: true });
const bomb = writeCabBomb('symcrash.pdb', 1000 << 20);
writeFileSync(join(bombStore, 'symcrash.pdb', debugId, 'symcrash.pd_'), bomb);
console.log(`cabinet bomb: ${(bomb.length / 1048576).toFixed(2)} MB .pd_ expanding to 1000 MB`);
await run('cabinet bomb', 1, 'serve', bombStore);
rmSync(bombStore, { recursive: true, force: true });
