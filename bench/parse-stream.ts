// `cdb-harness parse` on big `k` logs (issue 22, "`parse` memory": an 8 MB log took 3.6 s and
// 853 MB, and doubling it multiplied the time by up to 2.4). Builds 8 MB and 16 MB logs from a real
// transcript body (test/fixtures/transcripts/misc/k-x64-notepad-with-header.txt) repeated, runs the
// CLI on each in a child process (output to /dev/null) and prints wall time and peak RSS (from
// /usr/bin/time -f %M, GNU time) with the 16/8 ratios: streaming should give ~2x time, ~1x RSS.
//
//   node --import tsx bench/parse-stream.ts
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { REPO_ROOT, transcript } from '../test/parsers/transcripts.js';

const MB = 1024 * 1024;
const body = `${transcript('misc/k-x64-notepad-with-header.txt').body.replace(/\n*$/, '')}\n`;

function writeLog(path: string, bytes: number): void {
  const fd = openSync(path, 'w');
  const chunk = body.repeat(Math.ceil(MB / body.length));
  for (let written = 0; written < bytes;) written += writeSync(fd, chunk);
  closeSync(fd);
}

function run(log: string): { seconds: number; rssMb: number } {
  const start = performance.now();
  const child = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', process.execPath, '--import', 'tsx', 'scripts/run-cli.ts', 'parse', log],
    { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' },
  );
  const seconds = (performance.now() - start) / 1000;
  if (child.status !== 0) throw new Error(`parse failed: ${child.stderr}`);
  const kb = Number(child.stderr.trim().split('\n').pop());
  return { seconds, rssMb: kb / 1024 };
}

const dir = mkdtempSync(join(tmpdir(), 'parse-stream-'));
try {
  const results: Record<number, { seconds: number; rssMb: number }> = {};
  for (const size of [8, 16]) {
    const log = join(dir, `k${size}.log`);
    writeLog(log, size * MB);
    results[size] = run(log);
    console.log(
      `${size} MB log: ${results[size].seconds.toFixed(2)} s, peak RSS ${results[size].rssMb.toFixed(0)} MB`,
    );
  }
  const a = results[8];
  const b = results[16];
  if (a && b) {
    console.log(
      `16/8 ratio: time ${(b.seconds / a.seconds).toFixed(2)}x, peak RSS ${(b.rssMb / a.rssMb).toFixed(2)}x`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
