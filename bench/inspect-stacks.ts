// Benchmark: `inspect` of the ~2 GB full-memory dump with every thread's stack walked (images
// from the dump's own memory, names from their export tables), side by side with inspect without
// walks, in the same process. Goal: ≤ 150 ms and ≤ 4 MB read with walks.
//   node --import tsx bench/inspect-stacks.ts [--mb 2048] [--runs 21]
// The dump is the one bench/minidump-inspect.ts writes and caches in build/bench/ (made on first use).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { inspectDump, type InspectedDumpOk } from '../src/report/inspect/index.js';
import { createSymbolSupplier } from '../src/symbols/supplier/symbol-supplier.js';
import { REPO_ROOT } from '../test/helpers/wine.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? Number(args[at + 1]) : fallback;
};
const MB = option('--mb', 2048);
const RUNS = option('--runs', 21);
const dumpPath = join(REPO_ROOT, 'build', 'bench', `bigalloc-${MB}mb-full.dmp`);

if (!existsSync(dumpPath)) {
  // bench/minidump-inspect.ts writes the dump (bigalloc.exe + mdw.exe under Wine) and caches it.
  console.log(`no ${dumpPath} yet: making it with bench/minidump-inspect.ts --mb ${MB}`);
  const made = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(REPO_ROOT, 'bench', 'minidump-inspect.ts'),
      '--mb',
      String(MB),
      '--reads',
      '1',
    ],
    { cwd: REPO_ROOT, stdio: 'inherit' },
  );
  if (made.status !== 0 || !existsSync(dumpPath)) {
    console.log(`could not make ${dumpPath} (is the Wine rig set up? npm run setup)`);
    process.exit(1);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

// Images from the dump only, and none kept from one run to the next (as `inspect` of one dump).
const supplier = await createSymbolSupplier({
  symbolFiles: false,
  recordedPaths: false,
  cacheImages: false,
});

async function once(walk: boolean): Promise<{ ms: number; dump: InspectedDumpOk }> {
  const started = performance.now();
  // A fresh reader every run: nothing is cached between runs but the OS page cache.
  const dump = await inspectDump(dumpPath, walk ? { threads: 'all', supplier } : {});
  const ms = performance.now() - started;
  if (!dump.ok) throw new Error(dump.error.message);
  return { ms, dump };
}

const walked: number[] = [];
const plain: number[] = [];
let last: InspectedDumpOk | undefined;
let plainBytes = 0;
for (let i = 0; i < RUNS; i++) {
  const a = await once(true);
  const b = await once(false);
  if (i === 0) continue; // the first run pays for module loading and a cold page cache
  walked.push(a.ms);
  plain.push(b.ms);
  last = a.dump;
  plainBytes = b.dump.bytesRead;
}
if (last === undefined) throw new Error('--runs must be at least 2');
const frames = last.threads.reduce((n, t) => n + (t.stack?.frames.length ?? 0), 0);
const origins = Object.entries(last.images ?? {})
  .map(([name, origin]) => `${name}:${origin}`)
  .join(' ');
console.log(
  `dump: ${(last.fileSize / 2 ** 30).toFixed(2)} GiB, ${last.kind}, ${last.threads.length} thread(s), ${frames} frames walked; images ${origins}`,
);
for (const thread of last.threads) {
  console.log(`  thread ${thread.id}: ${thread.stack?.frames.map((f) => f.label).join(' <- ')}`);
}
const ms = median(walked);
const read = last.bytesRead;
console.log(
  `inspect with every thread walked: median ${ms.toFixed(1)} ms, ${(read / 1024).toFixed(0)} KiB read ` +
    `(without walks: median ${median(plain).toFixed(1)} ms, ${(plainBytes / 1024).toFixed(0)} KiB read); ` +
    `goal <= 150 ms and <= 4 MiB: ${ms <= 150 && read <= 4 * 2 ** 20 ? 'OK' : 'MISSED'}`,
);
