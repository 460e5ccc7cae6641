#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `prepack` before a
// tarball is made, by `npm run setup` in a clone; never on install).
import { existsSync, readFileSync } from 'node:fs';

// `cdb-harness … | head` closes our stdout early: that is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const main = new URL('../dist/src/cli/main.js', import.meta.url);
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
  process.exitCode = await (await import(main.href)).main(process.argv);
}
