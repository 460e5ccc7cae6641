// `cdb-harness query` over a large run: N records (default 100,000) made from the real records
// of the example dumps (test/analyze/report-records.ts: a few hundred signatures, 12 frames each)
// written to records.ndjson, then the CLI searched by a frame that is not in any signature, by
// a module, by a code and by a bucket, each in a child process timed from outside (wall time and
// peak RSS, GNU time). Goal (issue 34): at most 2 s and 200 MB for 100,000 records. Runs
// alternate (A B A B…) and medians are quoted, the machine being shared.
//
//   node --import tsx bench/query.ts [--records 100000] [--rounds 3]
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleRecords, manyRecords } from '../test/analyze/report-records.js';
import { REPO_ROOT } from '../test/helpers/wine.js';
import { option } from './bench-options.js';

const RECORDS = Number(option('--records', '100000'));
const ROUNDS = Number(option('--rounds', '3'));
const dir = mkdtempSync(join(tmpdir(), 'cdbh-bench-query-'));

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;

try {
  const bases = await exampleRecords(join(dir, 'examples'));
  const out = join(dir, 'run');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(out);
  const file = createWriteStream(join(out, 'records.ndjson'));
  for (const record of manyRecords(bases, RECORDS)) {
    if (!file.write(`${JSON.stringify(record)}\n`)) await once(file, 'drain');
  }
  file.end();
  await once(file, 'finish');
  const size = statSync(join(out, 'records.ndjson')).size;
  console.log(`${RECORDS} records, ${(size / 2 ** 20).toFixed(0)} MB of records.ndjson`);
  // The built CLI when there is one (what users run), else the sources through tsx.
  const built = join(REPO_ROOT, 'bin', 'cdb-harness.js');
  const cli =
    process.argv.includes('--source') ||
    statSync(join(REPO_ROOT, 'dist'), { throwIfNoEntry: false }) === undefined
      ? ['--import', 'tsx', join(REPO_ROOT, 'test', 'analyze', 'run-cli.ts')]
      : [built];
  const searches: [string, string[]][] = [
    ['frame not in any signature (1 in 300)', ['--frame', 'Method17_9']],
    ['module', ['--module', 'ntdll']],
    ['exception code', ['--code', 'e0434352']],
    ['bucket id prefix', ['--bucket', '0']],
  ];
  const figures = new Map<
    string,
    { ms: number[]; cpuMs: number[]; rssMb: number[]; matched: string }
  >();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, args] of searches) {
      const result = spawnSync(
        '/usr/bin/time',
        ['-f', '%e %U %S %M', process.execPath, ...cli, 'query', out, ...args],
        { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      const lines = result.stderr.trim().split('\n');
      // Sample: 1.23 1.01 0.15 151234 (elapsed s, user s, sys s, max RSS KB)
      const timed = /^([\d.]+) ([\d.]+) ([\d.]+) (\d+)$/.exec(lines.pop() ?? '');
      if (timed === null) throw new Error(`query ${args.join(' ')} failed: ${result.stderr}`);
      const entry = figures.get(name) ?? { ms: [], cpuMs: [], rssMb: [], matched: '' };
      entry.ms.push(Number(timed[1]) * 1000);
      entry.cpuMs.push((Number(timed[2]) + Number(timed[3])) * 1000);
      entry.rssMb.push(Number(timed[4]) / 1024);
      entry.matched = lines.pop() ?? '';
      figures.set(name, entry);
    }
  }
  // CPU time is quoted beside wall time: on a shared machine the wall time is mostly waiting.
  for (const [name, { ms, cpuMs, rssMb, matched }] of figures) {
    const met = median(ms) <= 2000 && median(rssMb) <= 200;
    console.log(
      `${name.padEnd(40)} median ${median(ms).toFixed(0)} ms wall, ${median(cpuMs).toFixed(0)} ms CPU, peak ${median(rssMb).toFixed(0)} MB (${ROUNDS} runs; ${matched}) ${met ? 'MET' : 'MISSED'} (goal 2 s, 200 MB)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
