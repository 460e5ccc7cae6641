// `npm run bench`: every benchmark in bench/, one after the other, each in its own process, in a
// quick mode (small sizes, few rounds) unless `--full` is given. A benchmark that needs the Wine
// rig is skipped with a note when the rig is not set up (`npm run setup`). Each prints its own
// figures; this prints a closing table of what ran, how long it took and how it ended.
//
//   npm run bench                      quick mode (a few minutes)
//   npm run bench -- --full            the sizes the goals are stated for (much longer)
//   npm run bench -- cli-start umdh    only benchmarks whose name contains one of the words
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, wineRigReady } from '../test/helpers/wine.js';

interface BenchPlan {
  /** Arguments for the quick mode. */
  quick: string[];
  /** Arguments for --full (default: none, the bench's own defaults). */
  full?: string[];
  needsWine?: boolean;
  /** Not a benchmark (a child process another bench starts). */
  helper?: boolean;
}

const PLANS: Record<string, BenchPlan> = {
  'analyze-rss-child.ts': { quick: [], helper: true },
  'symcrash-dump.ts': { quick: [], helper: true },
  'analyze-throughput.ts': {
    quick: ['--builtin', '50', '--winedbg', '6', '--rss', '20,100'],
  },
  'cli-start.ts': { quick: ['--quick'] },
  'fuzz-batch.ts': { quick: ['--dumps', '300'] },
  'hostile-dumps.ts': { quick: ['--modules', '200000', '--links', '2'] },
  'dump-overhead.ts': { quick: ['3'], needsWine: true },
  'windows-vs-linux.ts': { quick: ['--rounds', '1', '--copies', '1'], needsWine: true },
  'windows-phases.ts': { quick: ['--rounds', '2'], needsWine: true },
  'dump-triggers.ts': { quick: ['5', '1'], needsWine: true },
  'engine-overhead.ts': { quick: ['30', '2'], needsWine: true },
  'heap-trend-analysis.ts': { quick: ['--samples', '1000', '--heaps', '20'] },
  'heap-trend-sampling.ts': { quick: ['--samples', '5'], needsWine: true },
  'heap-trend-types.ts': { quick: ['--samples', '50', '--types', '1000'] },
  'heap-trend-from-dumps.ts': { quick: ['--dumps', '10', '--runs', '2'] },
  'heap-trend-clr-suspension.ts': { quick: ['--runs', '1', '--heap-mb', '16'] },
  'heap-trend-tiers.ts': {
    quick: ['--samples', '6', '--heap-mb', '64', '--hand-runs', '1', '--types-every', '2'],
  },
  'html-report.ts': { quick: ['--dumps', '1000', '--opens', '2'] },
  'analyze-walk.ts': { quick: ['--dumps', '100', '--runs', '2'] },
  'analyze-pipeline.ts': { quick: ['--dumps', '100', '--rounds', '2'] },
  'inspect-stacks.ts': { quick: ['--mb', '64', '--runs', '5'], needsWine: true },
  'minidump-inspect.ts': { quick: ['--mb', '64', '--reads', '2000'], needsWine: true },
  'parse-throughput.ts': { quick: ['--mb', '5'] },
  'parse-stream.ts': { quick: [] },
  // Skips with a message unless $BREAKPAD_STACKWALK names a minidump_stackwalk you built.
  'peer-vs-breakpad.ts': {
    quick: ['--repeat', '2', '--runs', '1', '--breakpad', process.env['BREAKPAD_STACKWALK'] ?? ''],
    full: ['--breakpad', process.env['BREAKPAD_STACKWALK'] ?? ''],
  },
  'queue-throughput.ts': {
    quick: ['--dumps', '300', '--rounds', '1', '--workers', '1,2', '--big', '0'],
  },
  'umdh-diff.ts': { quick: ['--snapshots', '5', '--stacks', '5000'] },
  'watch-suspension.ts': { quick: ['2'], needsWine: true },
};

const args = process.argv.slice(2);
const full = args.includes('--full');
const only = args.filter((a) => !a.startsWith('--'));
const wine = wineRigReady();
const benchDir = join(REPO_ROOT, 'bench');
const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.ts') && f !== 'run-all.ts')
  .filter((f) => only.length === 0 || only.some((word) => f.includes(word)))
  .sort();

const results: { name: string; outcome: string; seconds: number }[] = [];
for (const file of files) {
  const plan = PLANS[file];
  if (plan?.helper === true) continue;
  if (plan?.needsWine === true && !wine) {
    results.push({
      name: file,
      outcome: 'skipped (needs the Wine rig: npm run setup)',
      seconds: 0,
    });
    continue;
  }
  let benchArgs = plan === undefined ? [] : full ? (plan.full ?? []) : plan.quick;
  // analyze-throughput has a winedbg part of its own: leave it out without the rig.
  if (file === 'analyze-throughput.ts' && !wine) benchArgs = [...benchArgs, '--skip-winedbg'];
  console.log(
    `\n=== ${file} ${benchArgs.join(' ')}${plan === undefined ? '  (no quick mode known: defaults)' : ''}`,
  );
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(benchDir, file), ...benchArgs], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  const seconds = (performance.now() - started) / 1000;
  const outcome =
    run.error !== undefined
      ? `failed to start: ${run.error.message}`
      : run.status === 0
        ? 'ok'
        : `exit ${run.status ?? run.signal}`;
  results.push({ name: file, outcome, seconds });
}

console.log(`\n=== ${full ? 'full' : 'quick'} run of ${results.length} benchmark(s)`);
for (const r of results) {
  console.log(`  ${r.name.padEnd(26)} ${r.seconds.toFixed(1).padStart(7)} s  ${r.outcome}`);
}
if (results.some((r) => r.outcome !== 'ok' && !r.outcome.startsWith('skipped'))) {
  process.exitCode = 1;
}
