// The per-thread time budget of a walk never pays for what the walk waits on: a symbol server
// that never answers, or a large .sym file being indexed (issue 30 item 4: before, a hanging
// server turned examples/dumps/av-write-a.dmp into a 1-frame stack in another bucket). The budget
// is set far below those waits here and far above the walk's own work, so a wait counted
// against it cuts the stack and a wait left out does not. A stack the budget does cut is marked
// (walkCut) and forms no bucket.
import { expect } from 'chai';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProcessResult } from '../../src/processor/process-state.js';
import { createSigner } from '../../src/report/analyze/signature.js';
import type { SupplierOptions } from '../../src/symbols/supplier/symbol-supplier.js';
import { builtinFields } from '../../src/workflows/analyze/builtin-record.js';
import { bucketUnlessCut } from '../../src/workflows/analyze/dump-bucket.js';
import { processSupplied } from '../helpers/supplied.js';
import { startSymbolServer } from '../helpers/symbol-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..');
const AV = join(REPO, 'examples/dumps/av-write-a.dmp');
const SYMCRASH = join(REPO, 'examples/dumps/symcrash.dmp');
/** Far above the walk's own work (a few ms), far below the waits the test makes (≥ 1.5 s). */
const BUDGET_MS = 400;

async function walked(path: string, supply: SupplierOptions, budgetMs = BUDGET_MS) {
  const state: ProcessResult = await processSupplied(
    path,
    { threads: 'exception', streams: 'triage', threadBudgetMs: budgetMs },
    { recordedPaths: false, ...supply },
  );
  if (!state.ok) throw new Error(state.error.message);
  const fields = builtinFields(state);
  return { fields, bucket: bucketUnlessCut(fields, createSigner()) };
}

describe('walk clock: the time budget leaves out waits on symbols and images', function () {
  this.timeout(60_000);

  it('a symbol server that never answers gives av-write-a.dmp the bucket of no server', async () => {
    const alone = await walked(AV, {});
    const server = await startSymbolServer(makeTempDir('hang-root'), 'hang');
    try {
      const cache = makeTempDir('hang-cache');
      const hung = await walked(AV, {
        symbolPath: `srv*${cache}*${server.url}`,
        symbolCacheDir: cache,
        downloadTimeoutMs: 1500,
      });
      // The server was asked (for the images), and waited on well past the budget.
      expect(server.requests.length).to.be.greaterThan(0);
      expect(hung.fields.walkCut).to.equal(undefined);
      expect(hung.fields.frames.map((f) => f.address)).to.deep.equal(
        alone.fields.frames.map((f) => f.address),
      );
      expect(hung.bucket?.id).to.be.a('string').and.equal(alone.bucket?.id);
    } finally {
      await server.close();
    }
  });

  it('a large .sym being indexed gives symcrash.dmp the bucket of no symbols', async () => {
    // A store with symcrash's image (the dump has no CodeView record: the image gives the PDB
    // identity, and .pdata to unwind by), first alone, then with a .sym of ~15 MB for it: one
    // FUNC over the whole image (scanned words stay return addresses: the walk is the one
    // without symbols), then line records a reader must index.
    const store = makeTempDir('big-sym');
    const image = join('symcrash.exe', '6B09CE773c000');
    cpSync(join(REPO, 'examples/symbols', image), join(store, image), { recursive: true });
    const alone = await walked(SYMCRASH, { symbolPath: store, symbolCacheDir: makeTempDir('c') });
    const folder = join(store, 'symcrash.pdb', 'BAF84FAA9E2BDB5C4C4C44205044422E1');
    mkdirSync(folder, { recursive: true });
    const lines = [
      'MODULE windows x86_64 BAF84FAA9E2BDB5C4C4C44205044422E1 symcrash.pdb',
      'FUNC 1000 3b000 0 everything',
    ];
    const filler = Array.from(
      { length: 20_000 },
      (_, i) => `${(0x1000 + i).toString(16)} 1 ${i + 1} 0`,
    ).join('\n');
    const body = `${lines.join('\n')}\n${Array.from({ length: 60 }, () => filler).join('\n')}\n`;
    writeFileSync(join(folder, 'symcrash.sym'), body);
    const indexed = await walked(SYMCRASH, { symbolPath: store, symbolCacheDir: makeTempDir('c') });
    // Named from the .sym: it was read during the walk.
    expect(indexed.fields.frames[0]?.function).to.equal('everything');
    expect(indexed.fields.walkCut).to.equal(undefined);
    expect(indexed.fields.frames.map((f) => f.address)).to.deep.equal(
      alone.fields.frames.map((f) => f.address),
    );
    // The same bucket once the names the .sym added are left out (module+offset frames).
    const offsets = (fields: typeof alone.fields) =>
      createSigner().sign({
        exception: fields.exception,
        frames: fields.frames.map(({ function: _name, source: _source, ...frame }) => ({
          ...frame,
          ...(frame.moduleOffset === undefined ? {} : { offset: frame.moduleOffset }),
        })),
      });
    expect(offsets(indexed.fields).id).to.equal(offsets(alone.fields).id);
    expect(alone.bucket?.id).to.equal(offsets(alone.fields).id);
  });

  it('a stack the budget does cut is marked and forms no bucket', async () => {
    const cut = await walked(AV, {}, 0);
    expect(cut.fields.walkCut).to.equal('time');
    expect(cut.bucket).to.equal(null);
  });
});
