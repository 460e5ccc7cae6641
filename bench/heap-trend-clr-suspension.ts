// What one managed heap-trend sample costs the running program: `dotnet-dump collect --type Heap`
// (the default sampler: a heap dump SOS then reads) against `dotnet-gcdump collect` (an EventPipe
// GC heap walk, types only). The CLR program's `sessions` mode runs natively with its stall
// watcher, which prints `stall ms=N` whenever its 5 ms ticker could not run for 40 ms or more:
// the program's own measure of how long it was stopped. Each collect's wall time is printed too.
// Also compares what each gives for the growing type (System.Byte[]): dumpheap -stat -live vs
// `dotnet-gcdump report`.
//
//   node --import tsx bench/heap-trend-clr-suspension.ts [--runs 5] [--heap-mb 64]
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { locateDotnetTool } from '../src/engine/dialects/dotnet-dump/locate.js';
import { analyzeDump, collectDump } from '../src/engine/dialects/dotnet-dump/tool-run.js';
import { runToFiles } from '../src/engine/dialects/common/run-to-file.js';
import { parseDumpHeapStat } from '../src/parsers/dump-heap-stat.js';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const RUNS = arg('--runs', 5);
const HEAP_MB = arg('--heap-mb', 64);
const repo = resolve(import.meta.dirname, '..');
const toolsDir = join(repo, 'test', 'targets', 'dotnet');
const program = join(repo, 'build', 'dotnet', 'linux-x64', 'cdbh-dotnet');

const work = mkdtempSync(join(tmpdir(), 'cdbh-clr-bench-'));
const env = { ...process.env, TMPDIR: work };
const log = join(work, 'program.log');
const fd = openSync(log, 'w');
// A big, steady heap first (--large-kb), then slow growth: the dump size follows the heap.
const child = spawn(
  program,
  ['sessions', '-i', '100', '--session-kb', '16', '--large-kb', String(HEAP_MB * 1024), '-n', '0'],
  { env, stdio: ['ignore', fd, fd] },
);
closeSync(fd);
const lines = (): string[] => readFileSync(log, 'utf8').split('\n');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

try {
  while (!lines().some((l) => l.startsWith('sessions tick=3'))) await sleep(50);
  const pid = Number(lines()[0]?.slice(4));
  const dump = locateDotnetTool('dotnet-dump', env, toolsDir);
  const gcdump = locateDotnetTool('dotnet-gcdump', env, toolsDir);
  const result = {
    dump: { wall: [] as number[], stall: [] as number[], bytes: 0 },
    gcdump: { wall: [] as number[], stall: [] as number[], bytes: 0 },
  };
  const stallsSince = (from: number): number =>
    Math.max(
      0,
      ...lines()
        .slice(from)
        .flatMap((l) => (/^stall ms=(\d+)/.exec(l) ? [Number(l.slice(9))] : [])),
    );
  let dumpBytes = '';
  let gcBytes = '';
  for (let run = 0; run < RUNS; run++) {
    for (const kind of ['dump', 'gcdump'] as const) {
      const from = lines().length;
      const path = join(work, `${kind}-${run}.${kind === 'dump' ? 'core' : 'gcdump'}`);
      const began = performance.now();
      await collectDump(kind === 'dump' ? dump : gcdump, pid, path, {
        env,
        timeoutMs: 120_000,
        kind: kind === 'dump' ? 'heap' : 'gcdump',
      });
      result[kind].wall.push(performance.now() - began);
      await sleep(300);
      result[kind].stall.push(stallsSince(from));
      if (run === RUNS - 1) {
        if (kind === 'dump') {
          const out = await analyzeDump(dump, path, ['dumpheap -stat -live'], {
            env,
            timeoutMs: 120_000,
          });
          const row = parseDumpHeapStat(out.outputs[0] ?? '').types.find(
            (t) => t.className === 'System.Byte[]',
          );
          dumpBytes = `${row?.count ?? '?'} objects, ${row?.totalSize ?? '?'} bytes`;
        } else {
          const rep = await runToFiles(gcdump.file, [...gcdump.args, 'report', path], {
            env,
            timeoutMs: 60_000,
            ...(gcdump.cwd === undefined ? {} : { cwd: gcdump.cwd }),
          });
          const row =
            rep.stdout
              .split('\n')
              .find((l) => /\bSystem\.Byte\[\]/.test(l) && !/\(Bytes/.test(l)) ??
            rep.stdout.split('\n').find((l) => /System\.Byte\[\]/.test(l));
          gcBytes = (row ?? '?').trim().replace(/\s+/g, ' ');
        }
      }
      rmSync(path, { force: true });
    }
  }
  for (const kind of ['dump', 'gcdump'] as const) {
    const r = result[kind];
    console.log(
      `${kind === 'dump' ? 'dotnet-dump collect --type Heap' : 'dotnet-gcdump collect        '}: ` +
        `wall median ${median(r.wall).toFixed(0)} ms (max ${Math.max(...r.wall).toFixed(0)}), ` +
        `program stalled median ${median(r.stall)} ms (max ${Math.max(...r.stall)}) over ${RUNS} runs, heap ~${HEAP_MB} MB`,
    );
  }
  console.log(`System.Byte[] per dumpheap -stat -live: ${dumpBytes}`);
  console.log(`System.Byte[] per dotnet-gcdump report: ${gcBytes}`);
  console.log(
    `stall ratio gcdump/dump: ${(median(result.gcdump.stall) / Math.max(1, median(result.dump.stall))).toFixed(2)}`,
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
