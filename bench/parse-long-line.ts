// `cdb-harness parse` on one very long line (issue 30, item 13: a 32 MB line took 46 s, the
// unterminated line was joined to each new 64 KB chunk and searched again from its start). The
// whole command runs in this process (`main`, stdout counted and dropped) on a generated file of
// one line of N MB (default 32) and on one of 1 MB, alternating, and prints the median of each
// and their ratio per MB: near 1 means linear in the line length. Goal: 32 MB in at most 2 s.
//
//   node --import tsx bench/parse-long-line.ts [--mb 32] [--rounds 3]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { option } from './bench-options.js';

const mb = Number(option('--mb', '32'));
const rounds = Number(option('--rounds', '3'));
const dir = mkdtempSync(join(tmpdir(), 'cdbh-bench-long-line-'));

function lineFile(size: number): string {
  const path = join(dir, `line-${size}.txt`);
  // A debugger-looking start, then one line of `size` MB without a newline until the end.
  writeFileSync(
    path,
    `0:000> k\n${'ntdll!RtlUserThreadStart+0x21 '.repeat(Math.ceil((size << 20) / 30)).slice(0, size << 20)}\n`,
  );
  return path;
}

/** Wall and CPU (user + system) milliseconds of one `parse FILE`. */
async function timeParse(file: string): Promise<{ ms: number; cpuMs: number }> {
  const write = process.stdout.write.bind(process.stdout);
  let bytes = 0;
  process.stdout.write = (chunk: string | Uint8Array) => {
    bytes += chunk.length;
    return true;
  };
  const started = performance.now();
  const cpu = process.cpuUsage();
  try {
    const code = await main(['node', 'cdb-harness', 'parse', file]);
    if (code !== 0) throw new Error(`parse exited ${code}`);
  } finally {
    process.stdout.write = write;
  }
  if (bytes === 0) throw new Error('parse wrote nothing');
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  const big = lineFile(mb);
  const small = lineFile(1);
  const bigMs: number[] = [];
  const smallMs: number[] = [];
  const bigCpu: number[] = [];
  const smallCpu: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const one = await timeParse(small);
    smallMs.push(one.ms);
    smallCpu.push(one.cpuMs);
    const many = await timeParse(big);
    bigMs.push(many.ms);
    bigCpu.push(many.cpuMs);
  }
  const b = median(bigMs);
  const s = median(smallMs);
  // CPU beside wall: on a shared machine the wall time is mostly waiting for a core.
  console.log(
    `parse, one line: 1 MB ${s.toFixed(0)} ms (CPU ${median(smallCpu).toFixed(0)} ms), ` +
      `${mb} MB ${b.toFixed(0)} ms (CPU ${median(bigCpu).toFixed(0)} ms) (median of ${rounds}; ` +
      `load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`,
  );
  console.log(
    `per MB: ${(b / mb).toFixed(1)} ms vs ${s.toFixed(1)} ms at 1 MB, ratio ${(b / mb / s).toFixed(2)} (1 = linear); goal ${mb} MB <= 2000 ms: ${b <= 2000 ? 'met' : 'NOT met'}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
