// Benchmark: the built-in minidump reader on a ~2 GB full-memory dump written by Wine's dbghelp.
//   node --import tsx bench/minidump-inspect.ts [--mb 2048] [--reads 20000]
// The dump is made once (bigalloc.exe commits and touches N MB, mdw.exe writes it with
// MiniDumpWithFullMemory; a few minutes under Wine) and cached in build/bench/, then reused.
// Measures inspectDump (goal: ≤ 1 MB read, ≤ 100 ms) and readMemory of 4 KB at random captured
// addresses (goal: ≥ 20,000 reads/s), and prints the figures.
import { existsSync, mkdirSync, renameSync, rmSync, statfsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openMinidump } from '../src/minidump/index.js';
import { inspectDump } from '../src/report/inspect/index.js';
import { REPO_ROOT, startTarget, targetPath, wineRigReady } from '../test/helpers/wine.js';
import { runToEnd, windowsPath } from '../test/minidump/helpers/real-dumps.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? Number(args[at + 1]) : fallback;
};
const MB = option('--mb', 2048);
const READS = option('--reads', 20_000);
const READ_SIZE = 4096;
const benchDir = join(REPO_ROOT, 'build', 'bench');
const dumpPath = join(benchDir, `bigalloc-${MB}mb-full.dmp`);

async function ensureDump(): Promise<void> {
  if (existsSync(dumpPath)) {
    console.log(`using cached ${dumpPath} (${(statSync(dumpPath).size / 2 ** 30).toFixed(2)} GiB)`);
    return;
  }
  if (!wineRigReady() || !existsSync(targetPath('bigalloc')) || !existsSync(targetPath('mdw'))) {
    throw new Error(
      'the Wine rig is not ready: run `npm run setup` and `bash scripts/build-targets.sh`',
    );
  }
  mkdirSync(benchDir, { recursive: true });
  const free = statfsSync(benchDir);
  const freeBytes = free.bavail * free.bsize;
  if (freeBytes < (MB + 1024) * 2 ** 20) {
    throw new Error(
      `only ${(freeBytes / 2 ** 30).toFixed(1)} GiB free under ${benchDir}; need ${(MB / 1024 + 1).toFixed(1)}`,
    );
  }
  console.log(`writing a ${MB} MB full-memory dump (once; takes minutes under Wine)…`);
  const target = await startTarget('bigalloc', [String(MB), '0'], { startTimeoutMs: 30_000 });
  const partial = `${dumpPath}.partial`;
  try {
    await target.waitForLine(/^READY/, 300_000);
    const started = performance.now();
    await runToEnd(
      'wine',
      [targetPath('mdw'), String(target.pid), windowsPath(partial), '2'],
      1_800_000,
    );
    console.log(`  mdw.exe took ${((performance.now() - started) / 1000).toFixed(1)} s`);
    renameSync(partial, dumpPath);
  } finally {
    await target.kill();
    rmSync(partial, { force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function benchInspect(): Promise<void> {
  const times: number[] = [];
  let bytesRead = 0;
  let kind = '';
  for (let i = 0; i < 21; i++) {
    const started = performance.now();
    const dump = await inspectDump(dumpPath, { threads: 'none' });
    const ms = performance.now() - started;
    if (!dump.ok) throw new Error(dump.error.message);
    if (i > 0) times.push(ms); // the first run pays for module loading and a cold page cache
    bytesRead = dump.bytesRead;
    kind = `${dump.kind}, ${dump.memory.rangeCount} ranges, ${(dump.memory.totalBytes / 2 ** 30).toFixed(2)} GiB captured`;
  }
  console.log(`inspectDump: ${kind}`);
  console.log(
    `  bytes read   ${bytesRead} (${(bytesRead / 1024).toFixed(1)} KiB)   goal ≤ 1 MiB   ${bytesRead <= 2 ** 20 ? 'OK' : 'MISSED'}`,
  );
  console.log(
    `  wall time    median ${median(times).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms over ${times.length} runs   goal ≤ 100 ms   ${median(times) <= 100 ? 'OK' : 'MISSED'}`,
  );
}

async function benchReads(): Promise<void> {
  const dump = await openMinidump(dumpPath);
  try {
    const ranges = (await dump.memoryRanges()).filter((r) => r.size >= READ_SIZE);
    const total = ranges.reduce((sum, r) => sum + r.size, 0);
    // Addresses uniformly over the captured bytes (xorshift32, fixed seed: repeatable).
    let x = 0x9e3779b9;
    const next = () => {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      return x / 2 ** 32;
    };
    const addresses: bigint[] = [];
    for (let i = 0; i < READS; i++) {
      let at = Math.floor(next() * total);
      for (const r of ranges) {
        if (at < r.size) {
          addresses.push(r.start + BigInt(Math.min(at, r.size - READ_SIZE)));
          break;
        }
        at -= r.size;
      }
    }
    const before = dump.bytesRead;
    const rate = (ms: number) => Math.round((addresses.length / ms) * 1000);
    const sequential = async () => {
      const started = performance.now();
      let full = 0;
      for (const address of addresses) {
        const bytes = await dump.readMemory(address, READ_SIZE);
        if (bytes?.length === READ_SIZE) full++;
      }
      return { ms: performance.now() - started, full };
    };
    // Pass 1 touches pages the OS may not have cached (the disk's speed, not the reader's);
    // pass 2 reads the same addresses again, so it measures the reader itself.
    const cold = await sequential();
    const warm = await sequential();
    const started = performance.now();
    const inFlight = 16;
    let cursor = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (cursor < addresses.length) {
          const address = addresses[cursor++];
          if (address !== undefined) await dump.readMemory(address, READ_SIZE);
        }
      }),
    );
    const parallelMs = performance.now() - started;
    console.log(
      `readMemory: ${addresses.length} reads of ${READ_SIZE} B at random captured addresses (${warm.full} returned all ${READ_SIZE} bytes)`,
    );
    console.log(
      `  first pass, one at a time      ${rate(cold.ms)} reads/s (${cold.ms.toFixed(0)} ms; includes disk reads the OS had not cached)`,
    );
    console.log(
      `  same addresses, one at a time  ${rate(warm.ms)} reads/s (${warm.ms.toFixed(0)} ms)   goal ≥ 20,000   ${rate(warm.ms) >= 20_000 ? 'OK' : 'MISSED'}`,
    );
    console.log(
      `  same addresses, ${inFlight} in flight  ${rate(parallelMs)} reads/s (${parallelMs.toFixed(0)} ms)`,
    );
    console.log(
      `  bytes read      ${((dump.bytesRead - before) / 2 ** 20).toFixed(1)} MiB over the three passes`,
    );
  } finally {
    await dump.close();
  }
}

await ensureDump();
await benchInspect();
await benchReads();
