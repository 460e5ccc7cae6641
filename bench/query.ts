// `cdb-harness query` over a large run: N records (default 100,000) made from the real records
// of the example dumps (test/analyze/report-records.ts: a few hundred signatures, 12 frames each)
// written to records.ndjson, then the CLI searched by a frame that is not in any signature, by
// a module, by a code and by a bucket, each in a child process timed from outside (wall time and
// peak RSS, GNU time). Goal (issue 34): at most 2 s and 200 MB for 100,000 records. Runs
// alternate (A B A B…) and medians are quoted, the machine being shared. `--against CLI` runs
// another build of the CLI (bin/cdb-harness.js of another checkout) in turn with this one and
// prints both side by side; `--data DIR` keeps the generated records in DIR for the next run.
//
//   node --import tsx bench/query.ts [--records 100000] [--rounds 3] [--against PATH] [--data DIR]
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleRecords, manyRecords } from '../test/analyze/report-records.js';
import { REPO_ROOT } from '../test/helpers/wine.js';
import { option } from './bench-options.js';

const RECORDS = Number(option('--records', '100000'));
const ROUNDS = Number(option('--rounds', '3'));
const AGAINST = option('--against', '');
const DATA = option('--data', '');
const dir = DATA === '' ? mkdtempSync(join(tmpdir(), 'cdbh-bench-query-')) : DATA;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? NaN;

try {
  const out = join(dir, `run-${RECORDS}`);
  if (!existsSync(join(out, 'records.ndjson'))) {
    const bases = await exampleRecords(join(dir, 'examples'));
    mkdirSync(out, { recursive: true });
    const file = createWriteStream(join(out, 'records.ndjson.tmp'));
    for (const record of manyRecords(bases, RECORDS)) {
      if (!file.write(`${JSON.stringify(record)}\n`)) await once(file, 'drain');
    }
    file.end();
    await once(file, 'finish');
    const { renameSync } = await import('node:fs');
    renameSync(join(out, 'records.ndjson.tmp'), join(out, 'records.ndjson'));
  }
  const size = statSync(join(out, 'records.ndjson')).size;
  console.log(`${RECORDS} records, ${(size / 2 ** 20).toFixed(0)} MB of records.ndjson`);
  // Wall times on a shared machine follow its load: quoted with the figures.
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(`load average before: ${load()}`);
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
  // Ours, then the other build when given, for each search in turn: A B A B.
  const builds: [string, string[]][] = [['this', cli]];
  if (AGAINST !== '') builds.push(['against', [AGAINST]]);
  const figures = new Map<string, Figures>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, args] of searches) {
      for (const [build, command] of builds) {
        const key = `${build}\0${name}`;
        figures.set(key, timeQuery(command, [out, ...args], figures.get(key)));
      }
    }
  }
  // CPU time is quoted beside wall time: on a shared machine the wall time is mostly waiting.
  for (const [name] of searches) {
    for (const [build] of builds) {
      const { ms, cpuMs, rssMb, matched } = figures.get(`${build}\0${name}`)!;
      const met = median(ms) <= 2000 && median(rssMb) <= 200;
      console.log(
        `${`${name}${builds.length > 1 ? ` [${build}]` : ''}`.padEnd(50)} median ${median(ms).toFixed(0)} ms wall, ${median(cpuMs).toFixed(0)} ms CPU, peak ${median(rssMb).toFixed(0)} MB (${ROUNDS} runs; ${matched}) ${met ? 'MET' : 'MISSED'} (goal 2 s, 200 MB)`,
      );
    }
    if (builds.length > 1) {
      const cpu = (build: string) => median(figures.get(`${build}\0${name}`)!.cpuMs);
      console.log(
        `${''.padEnd(50)} CPU this/against: ${(cpu('this') / cpu('against')).toFixed(2)}x`,
      );
    }
  }
  console.log(`load average after: ${load()}`);
} finally {
  if (DATA === '') rmSync(dir, { recursive: true, force: true });
}

interface Figures {
  ms: number[];
  cpuMs: number[];
  rssMb: number[];
  matched: string;
}

/** One `query` run under GNU time, its figures added to `entry`. */
function timeQuery(cli: string[], args: string[], entry?: Figures): Figures {
  const result = spawnSync(
    '/usr/bin/time',
    ['-f', '%e %U %S %M', process.execPath, ...cli, 'query', ...args],
    { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const lines = result.stderr.trim().split('\n');
  // Sample: 1.23 1.01 0.15 151234 (elapsed s, user s, sys s, max RSS KB)
  const timed = /^([\d.]+) ([\d.]+) ([\d.]+) (\d+)$/.exec(lines.pop() ?? '');
  if (timed === null) throw new Error(`query ${args.join(' ')} failed: ${result.stderr}`);
  const figures = entry ?? { ms: [], cpuMs: [], rssMb: [], matched: '' };
  figures.ms.push(Number(timed[1]) * 1000);
  figures.cpuMs.push((Number(timed[2]) + Number(timed[3])) * 1000);
  figures.rssMb.push(Number(timed[4]) / 1024);
  figures.matched = lines.pop() ?? '';
  return figures;
}
