// Benchmark: `analyze --engine builtin` (stacks walked, Breakpad's .sym files as the symbol path)
// over the peer corpus repeated 20 times, side by side with Google Breakpad's `minidump_stackwalk`
// run once per dump on the same copies with the same symbols. Both sides run as child processes
// under GNU time, which reports user+system CPU and the peak RSS of the process tree.
//   node --import tsx bench/peer-vs-breakpad.ts --breakpad /path/to/minidump_stackwalk
//        [--corpus DIR] [--repeat 20] [--runs 3]
// The peer corpus (../shared/peer-corpus beside the repository, or $CDBH_PEER_CORPUS) and the
// Breakpad binary (built by you from its public source: it is not part of this repository) are
// both optional: without either the bench says so and skips. Goals (issue 34): our CPU at most
// 0.5x Breakpad's, our peak RSS at most 80 MB. Our side runs the built CLI (bin/cdb-harness.js,
// after `npm run build`; `npm run bench` builds first) or, without dist/, the CLI from source
// through tsx; its fixed cost (analyze of one dump) and start-up (--version) are measured
// separately and printed. analyze runs with its default concurrency and with --jobs 1 (one dump
// at a time, as Breakpad's loop).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peerCorpus } from '../test/peer/breakpad-compare.js';
import { REPO_ROOT } from '../test/helpers/wine.js';

const args = process.argv.slice(2);
const option = (name: string, fallback = '') => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : fallback;
};
const breakpad = option('--breakpad');
const corpus = option('--corpus') === '' ? peerCorpus() : join(option('--corpus'), 'breakpad');
const REPEAT = Number(option('--repeat', '20'));
const RUNS = Number(option('--runs', '3'));
const TIME = '/usr/bin/time';

interface Usage {
  cpuS: number;
  peakMb: number;
}

/** Runs `command` under GNU time; the last stderr line is `user system maxrssKB`. */
function timed(command: string[]): Usage {
  const result = spawnSync(TIME, ['-f', '%U %S %M', ...command], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const last = result.stderr.trim().split('\n').pop() ?? '';
  // Sample line: "1.23 0.10 85432"
  const match = /^(\d+\.\d+) (\d+\.\d+) (\d+)$/.exec(last);
  if (result.status !== 0 || match === null) {
    throw new Error(`${command.join(' ')} failed (${result.status}): ${result.stderr.slice(-500)}`);
  }
  return { cpuS: Number(match[1]) + Number(match[2]), peakMb: Number(match[3]) / 1024 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

if (corpus === undefined || !existsSync(join(corpus, 'dumps'))) {
  console.log('peer-vs-breakpad skipped: no peer corpus (../shared/peer-corpus or --corpus DIR)');
} else if (breakpad === '' || !existsSync(breakpad) || !existsSync(TIME)) {
  console.log(
    'peer-vs-breakpad skipped: pass --breakpad PATH to a minidump_stackwalk built from ' +
      'https://chromium.googlesource.com/breakpad/breakpad (and have GNU time at /usr/bin/time)',
  );
} else {
  const symbols = join(corpus, 'symbols');
  const input = mkdtempSync(join(tmpdir(), 'cdbh-bench-peer-'));
  const dumps = readdirSync(join(corpus, 'dumps')).filter((f) => f.endsWith('.dmp'));
  for (let r = 0; r < REPEAT; r++) {
    for (const dump of dumps)
      copyFileSync(join(corpus, 'dumps', dump), join(input, `${r}-${dump}`));
  }
  const count = dumps.length * REPEAT;
  const built = existsSync(join(REPO_ROOT, 'dist', 'bundle', 'cli', 'main.js'));
  const cli = built
    ? ['node', join(REPO_ROOT, 'bin', 'cdb-harness.js')]
    : ['node', '--import', 'tsx', join(REPO_ROOT, 'scripts', 'run-cli.ts')];
  const ours: Usage[] = [];
  const oursOne: Usage[] = [];
  const theirs: Usage[] = [];
  const startup: Usage[] = [];
  /** analyze of a single dump: the run's fixed cost (start-up, module loading, .sym files). */
  const single: Usage[] = [];
  const singleInput = mkdtempSync(join(tmpdir(), 'cdbh-bench-peer-one-'));
  copyFileSync(join(corpus, 'dumps', dumps[0]!), join(singleInput, dumps[0]!));
  try {
    for (let run = 0; run < RUNS; run++) {
      const variants: [Usage[], string[]][] = [
        [ours, []],
        [oursOne, ['--jobs', '1']],
      ];
      for (const [list, extra] of variants) {
        const out = mkdtempSync(join(tmpdir(), 'cdbh-bench-peer-out-'));
        try {
          const command = [...cli, 'analyze', input, '--engine', 'builtin'];
          list.push(timed([...command, '--symbol-path', symbols, '--out', out, ...extra]));
        } finally {
          rmSync(out, { recursive: true, force: true });
        }
      }
      startup.push(timed([...cli, '--version']));
      const singleOut = mkdtempSync(join(tmpdir(), 'cdbh-bench-peer-out-'));
      try {
        single.push(
          timed([
            ...cli,
            ...['analyze', singleInput, '--engine', 'builtin', '--symbol-path', symbols],
            ...['--out', join(singleOut, 'out')],
          ]),
        );
      } finally {
        rmSync(singleOut, { recursive: true, force: true });
      }
      // One minidump_stackwalk process per dump, machine-readable output, the same symbols.
      theirs.push(
        timed([
          'bash',
          '-c',
          'for f in "$1"/*.dmp; do "$2" -m "$f" "$3" >/dev/null 2>&1; done',
          'loop',
          input,
          breakpad,
          symbols,
        ]),
      );
    }
    const oursCpu = median(ours.map((u) => u.cpuS));
    const oneCpu = median(oursOne.map((u) => u.cpuS));
    const theirCpu = median(theirs.map((u) => u.cpuS));
    const start = median(startup.map((u) => u.cpuS));
    const fixed = median(single.map((u) => u.cpuS));
    console.log(
      `peer corpus: ${dumps.length} dumps x ${REPEAT} = ${count} dumps, ${RUNS} runs (medians)`,
    );
    console.log(
      `  builtin analyze (one process, ${built ? 'built' : 'from source'}): ${oursCpu.toFixed(2)} s CPU ` +
        `(${((oursCpu * 1000) / count).toFixed(2)} ms/dump), peak ${median(ours.map((u) => u.peakMb)).toFixed(0)} MB; ` +
        `with --jobs 1 ${oneCpu.toFixed(2)} s, peak ${median(oursOne.map((u) => u.peakMb)).toFixed(0)} MB; ` +
        `fixed cost (analyze of 1 dump) ${fixed.toFixed(2)} s, CLI start-up (--version) ${start.toFixed(2)} s`,
    );
    console.log(
      `  Breakpad minidump_stackwalk (a process per dump): ${theirCpu.toFixed(2)} s CPU ` +
        `(${((theirCpu * 1000) / count).toFixed(2)} ms/dump), peak ${median(theirs.map((u) => u.peakMb)).toFixed(0)} MB`,
    );
    const ratio = oursCpu / theirCpu;
    const peak = Math.max(...ours.map((u) => u.peakMb), ...oursOne.map((u) => u.peakMb));
    console.log(
      `  CPU ratio ours/Breakpad: ${ratio.toFixed(2)}x (--jobs 1: ${(oneCpu / theirCpu).toFixed(2)}x)`,
    );
    console.log(
      `goal CPU <= 0.5x Breakpad's: ${ratio.toFixed(2)}x (${oursCpu.toFixed(2)} s vs ${theirCpu.toFixed(2)} s): ` +
        `${ratio <= 0.5 ? 'MET' : 'MISSED'}`,
    );
    console.log(
      `goal peak <= 80 MB (highest of every run): ${peak.toFixed(0)} MB vs Breakpad's ` +
        `${median(theirs.map((u) => u.peakMb)).toFixed(0)} MB: ${peak <= 80 ? 'MET' : 'MISSED'}`,
    );
  } finally {
    rmSync(input, { recursive: true, force: true });
    rmSync(singleInput, { recursive: true, force: true });
  }
}
