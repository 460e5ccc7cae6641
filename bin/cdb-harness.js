#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `prepack` before a
// tarball is made, by `npm run setup` in a clone; never on install).
import { existsSync, readFileSync } from 'node:fs';

// `cdb-harness … | head` closes our stdout early: that is not an error worth a stack trace. Any
// other failure of stdout (`> /dev/full`: ENOSPC, a dead network share: EIO) is one line on
// stderr in the CLI's words (failureCause) and exit code 1, not Node's stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', async (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    if (stream === process.stdout) {
      let cause = error.code ?? error.message;
      try {
        cause = (await import(main.href)).failureCause(error);
      } catch {
        // no build yet: the code alone
      }
      process.stderr.write(`cdb-harness: cannot write the standard output: ${cause}\n`);
    }
    process.exit(1);
  });
}

// The CLI bundle (scripts/build-cli-bundle.ts): ~90 files, ~40 loaded by an analyze run, not ~200 modules.
const main = new URL('../dist/bundle/cli/main.js', import.meta.url);
const argv = process.argv;
if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
  // A script's version check costs about what `node -e 0` does: no CLI module is loaded
  // (bench/cli-start.ts). The same answer as main.ts gives, from the same package.json.
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else if (!existsSync(main) && existsSync(new URL('../src/cli/main.ts', import.meta.url))) {
  // A clone after `npm ci`, before any build (npm ci no longer builds: see package.json prepack).
  process.stderr.write(
    'cdb-harness: this clone has no build yet (dist/ is missing): run `npm run build` once, ' +
      'or run from source with `node --import tsx scripts/run-cli.ts …`\n',
  );
  process.exitCode = 1;
} else {
  // V8 compiles a function with TurboFan once it has run about --interrupt-budget bytes of
  // bytecode: 66 KB (67584) by default in Node 20. A CLI run is short, and in one `analyze` of the
  // peer corpus x20 (460 dumps) 35-42% of the CPU was TurboFan on V8's background threads (perf
  // record), compiling the same functions again and again (readDump 3 times, parseModuleList 6)
  // for code that was about to finish. With 1 MB only the really hot code is optimized, and later.
  // CPU (user+sys), farm-bench alternating A/B, median of the pairs' ratios, budget vs default:
  //   500000:  peer x20 0.74x, example dumps x500 (Wine images found) 0.73x
  //   1000000: peer x20 0.65x (bundled CLI); 2000000 and 4000000 vs 1000000: peer 1.00x and
  //            1.01x, examples 1.01x and 1.11x, so 1 MB, the smallest that takes the whole gain.
  //   1000000 again once analyze threads came (c2e1ea4): peer x20 0.71x, examples x500 (one
  //            analyze thread besides the main one) 0.75x CPU and 0.79x wall; peak unchanged.
  //   --max-opt=2 gave the peer run as much but made the examples 3x slower; --single-threaded-gc
  //   1.01x and 1.00x with a higher peak.
  // Command (DIR a folder of dumps; B is the default, passed explicitly as this launcher leaves
  // an --interrupt-budget given to node as it is):
  //   farm-bench -n 6 --vs 'node --interrupt-budget=67584 bin/cdb-harness.js analyze DIR
  //     --engine builtin --out OUT2' -- node bin/cdb-harness.js analyze DIR --engine builtin --out OUT1
  //   (each run needs an --out of its own: wrap both in sh -c '…; rm -rf OUT')
  // Set before any CLI module is loaded: the flag applies to every function made after it, in
  // this thread and in worker threads.
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  // Sample: --interrupt-budget=500000
  if (!given.some((flag) => /^--interrupt[-_]budget\b/.test(flag))) {
    const { setFlagsFromString } = await import('node:v8');
    setFlagsFromString('--interrupt-budget=1000000');
  }
  process.exitCode = await (await import(main.href)).main(process.argv);
}
