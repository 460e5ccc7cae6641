// The million-module dump of issue 22: a ModuleList claiming ~1M modules whose name and CodeView
// RVAs are 0xfffffff0 (108 MB). Goal: one `analyze` in at most 5 s and 300 MB peak, a failed or
// partial record with the reason, and 8 hard links to it in one batch all recorded (before the
// bounds: 27.6 s, 3.1 GB and a 115 MB record for one; a V8 out-of-memory and no record for 8).
// Each run is a fresh process (bench/analyze-rss-child.ts: analyzeDumps from source through
// tsx) that prints its own peak RSS (process.resourceUsage().maxRSS).
//   node --import tsx bench/hostile-dumps.ts [--modules 1000000] [--links 8]
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manyModulesDump } from '../test/helpers/hostile-dumps.js';
import { REPO_ROOT } from '../test/helpers/wine.js';

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const modules = arg('modules', 1_000_000);
const links = arg('links', 8);
const root = join(tmpdir(), `cdbh-bench-hostile-${process.pid}`);
mkdirSync(root, { recursive: true });

function run(inputs: string, out: string): { ms: number; rssMb: number; code: number | null } {
  const started = performance.now();
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'bench', 'analyze-rss-child.ts'), inputs, out],
    { cwd: REPO_ROOT, encoding: 'utf8' },
  );
  const ms = performance.now() - started;
  const rss = /maxRssKb=(\d+)/.exec(child.stdout)?.[1];
  if (rss === undefined) console.log(child.stdout, child.stderr.slice(-2000));
  return { ms, rssMb: Number(rss ?? 0) / 1024, code: child.status };
}

function largestRecord(out: string): { count: number; maxBytes: number; reason: string } {
  const lines = readFileSync(join(out, 'records.ndjson'), 'utf8').trim().split('\n');
  const first = JSON.parse(lines[0] ?? '{}') as { error?: { message?: string } };
  return {
    count: lines.length,
    maxBytes: Math.max(0, ...lines.map((l) => Buffer.byteLength(l))),
    reason: first.error?.message ?? '(ok)',
  };
}

try {
  const one = join(root, 'one');
  mkdirSync(one);
  const dump = join(one, 'million.dmp');
  writeFileSync(dump, manyModulesDump(modules));
  const mb = statSync(dump).size / 1024 / 1024;
  console.log(`hostile dump: ${modules} modules claimed, ${mb.toFixed(1)} MB`);

  const single = run(one, join(root, 'out-one'));
  const r1 = largestRecord(join(root, 'out-one'));
  console.log(
    `one dump:   ${(single.ms / 1000).toFixed(2)} s (process start included), peak ${single.rssMb.toFixed(0)} MB, record ${r1.maxBytes} bytes (goal <= 5 s, <= 300 MB)`,
  );
  console.log(`  reason: ${r1.reason.slice(0, 200)}`);

  const many = join(root, 'many');
  mkdirSync(many);
  for (let i = 0; i < links; i++) linkSync(dump, join(many, `m${i}.dmp`));
  const batch = run(many, join(root, 'out-many'));
  const r8 = largestRecord(join(root, 'out-many'));
  console.log(
    `${links} links: ${(batch.ms / 1000).toFixed(2)} s, peak ${batch.rssMb.toFixed(0)} MB, ${r8.count} records, largest ${r8.maxBytes} bytes`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
