// Benchmark: processDump()'s CPU per dump (the processor, the reader, the walker and the
// supplier's per-dump lookups; nothing of analyze around it), on the peer corpus (its .sym files
// as the symbol path) and on the example dumps (the Wine prefix's system DLLs as images), each
// run in a fresh process (bench/process-dump-child.ts).
//   node --import tsx bench/process-dump.ts [--runs 5] [--baseline DIR] [--peer-count 460]
//        [--examples-count 500]
// With --baseline (another checkout of this repository, e.g. `git worktree add /tmp/base
// main~5`, with node_modules beside it), the two checkouts run alternately, so load on a shared
// machine hits both alike, and the medians are printed side by side with their ratio. Issue 19's
// goal for this part: half the CPU per dump of the start of the work on both sets.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { peerCorpus } from '../test/peer/breakpad-compare.js';
import { REPO_ROOT } from '../test/helpers/wine.js';
import { option } from './bench-options.js';

const RUNS = Number(option('--runs', '5'));
const baseline = option('--baseline', '');
const counts = {
  peer: Number(option('--peer-count', '460')),
  examples: Number(option('--examples-count', '500')),
};
const corpus = peerCorpus();
const repoPrefix = join(REPO_ROOT, '.wine');
const winePrefix =
  process.env['WINEPREFIX'] ?? (existsSync(join(repoPrefix, 'drive_c')) ? repoPrefix : undefined);

interface Figures {
  coldMs: number;
  warmMs: number;
  frames: number;
}

function child(root: string, set: 'peer' | 'examples'): Figures {
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      join(REPO_ROOT, 'bench', 'process-dump-child.ts'),
      root,
      set,
      String(counts[set]),
      ...(corpus === undefined ? [] : [corpus]),
    ],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, ...(winePrefix === undefined ? {} : { WINEPREFIX: winePrefix }) },
    },
  );
  const last = result.stdout.trim().split('\n').pop() ?? '';
  if (result.status !== 0 || !last.startsWith('{')) {
    throw new Error(`process-dump-child ${root} ${set} failed: ${result.stderr.slice(-800)}`);
  }
  return JSON.parse(last) as Figures;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const sets = corpus === undefined ? (['examples'] as const) : (['peer', 'examples'] as const);
if (corpus === undefined) console.log('peer corpus missing: examples only');
console.log(`images: Wine prefix ${winePrefix ?? 'none (examples walk without system DLLs)'}`);
const trees = baseline === '' ? [REPO_ROOT] : [baseline, REPO_ROOT];
for (const set of sets) {
  const runs = new Map<string, Figures[]>(trees.map((t) => [t, []]));
  for (let run = 0; run < RUNS; run++) {
    for (const tree of trees) runs.get(tree)!.push(child(tree, set));
  }
  const line = (tree: string) => {
    const figures = runs.get(tree)!;
    return {
      cold: median(figures.map((f) => f.coldMs)),
      warm: median(figures.map((f) => f.warmMs)),
      frames: figures[0]?.frames ?? 0,
    };
  };
  console.log(`${set}: ${counts[set]} dumps per process, ${RUNS} runs (medians, ms CPU per dump)`);
  for (const tree of trees) {
    const { cold, warm, frames } = line(tree);
    const name = tree === REPO_ROOT ? 'this checkout' : `baseline ${tree}`;
    console.log(
      `  ${name}: first ${counts[set]} ${cold.toFixed(3)}, next ${counts[set]} ${warm.toFixed(3)} (frames ${frames})`,
    );
  }
  if (baseline !== '') {
    const before = line(baseline);
    const after = line(REPO_ROOT);
    console.log(
      `  ratio this/baseline: first ${(after.cold / before.cold).toFixed(2)}x, next ${(after.warm / before.warm).toFixed(2)}x` +
        (after.frames === before.frames
          ? ''
          : `  (frames differ: ${before.frames} -> ${after.frames})`),
    );
  }
}
