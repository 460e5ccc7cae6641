#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `prepack` before a
// tarball is made, by `npm run setup` in a clone; never on install).
import { existsSync } from 'node:fs';

// `cdb-harness … | head` closes our stdout early: that is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(main) && existsSync(new URL('../src/cli/main.ts', import.meta.url))) {
  // A clone after `npm ci`, before any build (npm ci no longer builds: see package.json prepack).
  process.stderr.write(
    'cdb-harness: this clone has no build yet (dist/ is missing): run `npm run build` once, ' +
      'or run from source with `node --import tsx scripts/run-cli.ts …`\n',
  );
  process.exitCode = 1;
} else {
  process.exitCode = await (await import(main.href)).main(process.argv);
}
