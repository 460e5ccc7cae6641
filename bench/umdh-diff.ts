// umdh-diff across 20 snapshot logs × 50,000 backtraces. Goal (issue #7): ≤ 10 s, peak RSS ≤ 512 MB.
//
// The snapshot files are GENERATED: every entry repeats the shape of the one real umdh snapshot-log
// entry in test/fixtures/transcripts/umdh/docs-diff-backtrace-block.txt (`%08x bytes in 0x%x allocations
// (@ 0x%08x) by: BackTrace%05X` followed by its 12 frame lines), with the backtrace id, the sizes
// and the order of the frames varied per entry. 5 % of the stacks grow steadily from snapshot to
// snapshot (the leaks to find), the rest wobble. The diff runs in a child process so its peak RSS
// is its own (process.resourceUsage().maxRSS).
//
//   node --import tsx bench/umdh-diff.ts [--snapshots 20] [--stacks 50000]
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runUmdhDiff } from '../src/workflows/umdh/umdh-diff.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};

async function child(files: string[]): Promise<void> {
  const began = performance.now();
  const trend = await runUmdhDiff({ files, top: 50 });
  const ms = performance.now() - began;
  process.stdout.write(
    JSON.stringify({
      ms,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      totalStacks: trend.totalStacks,
      suspectStacks: trend.suspectStacks,
      top: trend.stacks[0]?.backtrace,
    }),
  );
}

function realEntry(): { frames: string[] } {
  const file = resolve(
    HERE,
    '..',
    'test',
    'fixtures',
    'transcripts',
    'umdh',
    'docs-diff-backtrace-block.txt',
  );
  const text = readFileSync(file, 'utf8');
  const body = text.slice(text.indexOf('# ---\n') + 6).split('\n');
  // Line 1 is the entry header, the rest are its frames.
  return {
    frames: body
      .slice(1)
      .filter((l) => l.trim() !== '')
      .map((l) => l.trimEnd()),
  };
}

function generate(dir: string, snapshots: number, stacks: number): string[] {
  const { frames } = realEntry();
  const files: string[] = [];
  for (let s = 0; s < snapshots; s++) {
    const file = join(dir, `snap${String(s).padStart(2, '0')}.log`);
    const fd = openSync(file, 'w');
    let chunk = '';
    for (let i = 0; i < stacks; i++) {
      const leaking = i % 20 === 0;
      const bytes = leaking
        ? 0x1000 * (1 + (i % 7)) * (s + 1)
        : 0x400 + ((i * 7919 + s * 104729) % 0x8000);
      const allocs = Math.max(1, bytes >> 10);
      // Vary which frames the stack holds so stacks differ in text, not just in id.
      const rot = i % frames.length;
      const stackFrames = [...frames.slice(rot), ...frames.slice(0, rot)].slice(0, 8 + (i % 5));
      chunk += `${bytes.toString(16).toUpperCase().padStart(8, '0')} bytes in 0x${allocs.toString(16).toUpperCase()} allocations (@ 0x${(0x400).toString(16).padStart(8, '0')}) by: BackTrace${(0x10000 + i).toString(16).toUpperCase()}\n`;
      chunk += `${stackFrames.join('\n')}\n\n`;
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    writeSync(fd, chunk);
    closeSync(fd);
    files.push(file);
  }
  return files;
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') {
    await child(process.argv.slice(3));
    return;
  }
  const snapshots = arg('--snapshots', 20);
  const stacks = arg('--stacks', 50_000);
  const dir = mkdtempSync(join(tmpdir(), 'cdbh-bench-umdh-'));
  try {
    const genBegan = performance.now();
    const files = generate(dir, snapshots, stacks);
    const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
    console.log(
      `generated ${snapshots} snapshot logs × ${stacks} backtraces (${(bytes / 1048576).toFixed(0)} MB) in ${((performance.now() - genBegan) / 1000).toFixed(1)} s`,
    );
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', ...files],
      {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      },
    );
    const r = JSON.parse(out) as {
      ms: number;
      maxRssMb: number;
      totalStacks: number;
      suspectStacks: number;
      top: string;
    };
    const okTime = r.ms <= 10_000;
    const okRss = r.maxRssMb <= 512;
    console.log(
      `umdh-diff: ${(r.ms / 1000).toFixed(2)} s (goal ≤ 10 s) ${okTime ? 'OK' : 'OVER'}; ` +
        `peak RSS ${r.maxRssMb.toFixed(0)} MB (goal ≤ 512 MB) ${okRss ? 'OK' : 'OVER'}; ` +
        `${r.totalStacks} stacks, ${r.suspectStacks} suspects (expected ${Math.ceil(stacks / 20)}), top ${r.top}; ` +
        `${(bytes / 1048576 / (r.ms / 1000)).toFixed(0)} MB/s`,
    );
    if (!okTime || !okRss) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
