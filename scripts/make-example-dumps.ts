// Regenerates examples/dumps/: small real minidumps written by winedbg from the rig's test
// programs (see test/helpers/dump-factory.ts for how each is made), and examples/symbols/: the
// image and PDB of symcrash.exe (the clang + lld program with a real PDB,
// scripts/build-pdb-targets.sh) in symbol-store layout, so the README's main job walks its dump
// by the image's unwind data and names its frames. Needs the Wine rig (`npm run setup`).
// Usage: node --import tsx scripts/make-example-dumps.ts [NAME.dmp …] (default: every dump; the
// recorded real-engine transcripts in test/fixtures/transcripts/dbgeng/ belong to the av, clr,
// cpp and attach dumps: regenerating those means recording them again).
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXAMPLES = resolve(fileURLToPath(import.meta.url), '..', '..', 'examples', 'dumps');

// Fresh dumps, not the test cache: a scratch cache folder for this run only.
const scratch = await mkdtemp(join(tmpdir(), 'cdbh-examples-'));
process.env['CDB_HARNESS_TEST_DUMPS'] = scratch;
const { realDump } = await import('../test/helpers/dump-factory.js');
const { dumpAtFirstChance } = await import('../test/minidump/helpers/real-dumps.js');
const { targetPath } = await import('../test/helpers/wine.js');
const { readImageIdentity } = await import('../src/symbols/index.js');
const { PositionedFileReader } = await import('../src/minidump/file-reader.js');
const SYMBOLS = resolve(EXAMPLES, '..', 'symbols');
const only = process.argv.slice(2);

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
    if (only.length > 0 && !only.includes(name)) continue;
    const path = await realDump(kind, copy);
    await copyFile(path, join(EXAMPLES, name));
    console.log(`${name}  <- ${kind}`);
  }
  if (only.length === 0 || only.includes('symcrash.dmp')) {
    // main -> run_job -> store_value, dumped at the access violation's first chance.
    const dump = await dumpAtFirstChance('symcrash', [], 'symcrash.dmp');
    await copyFile(dump.path, join(EXAMPLES, 'symcrash.dmp'));
    const exe = targetPath('symcrash');
    const reader = await PositionedFileReader.open(exe);
    const identity = await readImageIdentity(reader, exe).finally(() => reader.close());
    const debugId = identity.codeView?.debugId;
    if (debugId === undefined) {
      throw new Error(`${exe}: no CodeView record or code id`);
    }
    // Store layout (as symchk and cdb's srv* caches lay them out): NAME/ID/NAME.
    const imageDir = join(SYMBOLS, 'symcrash.exe', identity.codeId);
    const pdbDir = join(SYMBOLS, 'symcrash.pdb', debugId);
    await rm(SYMBOLS, { recursive: true, force: true });
    await mkdir(imageDir, { recursive: true });
    await mkdir(pdbDir, { recursive: true });
    await copyFile(exe, join(imageDir, 'symcrash.exe'));
    await copyFile(exe.replace(/\.exe$/, '.pdb'), join(pdbDir, 'symcrash.pdb'));
    console.log(`symcrash.dmp  <- symcrash (image and PDB in examples/symbols)`);
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
