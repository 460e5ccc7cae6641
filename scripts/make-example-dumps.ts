// Regenerates examples/dumps/: small real minidumps written by winedbg from the rig's test
// programs (see test/helpers/dump-factory.ts for how each is made). Needs the Wine rig
// (`npm run setup`). Usage: node --import tsx scripts/make-example-dumps.ts
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXAMPLES = resolve(fileURLToPath(import.meta.url), '..', '..', 'examples', 'dumps');

// Fresh dumps, not the test cache: a scratch cache folder for this run only.
const scratch = await mkdtemp(join(tmpdir(), 'cdbh-examples-'));
process.env['CDB_HARNESS_TEST_DUMPS'] = scratch;
const { realDump } = await import('../test/helpers/dump-factory.js');

const wanted = [
  // Two runs of the same crash: one bucket of two.
  { kind: 'av-write', copy: 1, name: 'av-write-a.dmp' },
  { kind: 'av-write', copy: 2, name: 'av-write-b.dmp' },
  { kind: 'clr-raise', copy: 1, name: 'clr-raise.dmp' },
  { kind: 'cpp-throw', copy: 1, name: 'cpp-throw.dmp' },
  { kind: 'attach-break', copy: 1, name: 'attach-break.dmp' },
] as const;

try {
  await mkdir(EXAMPLES, { recursive: true });
  for (const { kind, copy, name } of wanted) {
    const path = await realDump(kind, copy);
    await copyFile(path, join(EXAMPLES, name));
    console.log(`${name}  <- ${kind}`);
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
