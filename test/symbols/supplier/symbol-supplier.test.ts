// The one supplier (src/symbols/supplier/symbol-supplier.ts): built once per run from the
// options, it finds the example store's image and PDB for symcrash.dmp (a real Wine dump, see
// examples/dumps/README.md), keeps them for the next dump of the run, maps recorded paths one
// way, and reads no symbol path it was not given.
import { expect } from 'chai';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { processDump } from '../../../src/processor/process-dump.js';
import type { ProcessState } from '../../../src/processor/process-state.js';
import { createSymbolSupplier } from '../../../src/symbols/supplier/symbol-supplier.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT } from '../../helpers/wine.js';

const DUMP = join(REPO_ROOT, 'examples', 'dumps', 'symcrash.dmp');
const STORE = join(REPO_ROOT, 'examples', 'symbols');

function crashing(state: ProcessState) {
  const frames = state.threads.find((t) => t.faulting)?.callStack?.frames ?? [];
  return frames.slice(0, 3).map((f) => `${f.symbol?.function ?? '?'} ${f.trust}`);
}

async function symcrash(supplier: Awaited<ReturnType<typeof createSymbolSupplier>>) {
  const state = await processDump(DUMP, { threads: 'exception', supplier });
  if (!state.ok) throw new Error(state.error.message);
  return state;
}

describe('symbol supplier (symbols/supplier/symbol-supplier.ts)', () => {
  it('finds the image and the PDB in one store: frames unwound by CFI and named', async () => {
    const dir = makeTempDir('supplier');
    const supplier = await createSymbolSupplier({
      symbolPath: STORE,
      symbolCacheDir: join(dir, 'cache'),
      recordedPaths: false,
      env: { HOME: dir },
    });
    try {
      expect(supplier.hasSymbolFiles).to.equal(true);
      const state = await symcrash(supplier);
      expect(crashing(state)).to.deep.equal(['store_value context', 'run_job cfi', 'main cfi']);
      expect(state.images?.['symcrash.exe']).to.equal(
        join(STORE, 'symcrash.exe', '6B09CE773c000', 'symcrash.exe'),
      );
      expect(state.symbols?.find((s) => s.module === 'symcrash.exe')).to.include({
        status: 'loaded',
        format: 'pdb',
      });
    } finally {
      await supplier.close();
    }
  });

  it('keeps what it found for the next dump of the run, until it is closed', async () => {
    // A store of our own, emptied after the first dump: only the supplier's caches can serve
    // the second one.
    const dir = makeTempDir('supplier-cache');
    const store = join(dir, 'store');
    cpSync(STORE, store, { recursive: true });
    const options = {
      symbolPath: store,
      symbolCacheDir: join(dir, 'cache'),
      recordedPaths: false,
      env: { HOME: dir },
    };
    const cached = await createSymbolSupplier(options);
    const uncached = await createSymbolSupplier({ ...options, cacheImages: false });
    try {
      const first = crashing(await symcrash(cached));
      await symcrash(uncached);
      rmSync(join(store, 'symcrash.exe'), { recursive: true });
      expect(crashing(await symcrash(cached))).to.deep.equal(first);
      // Without the image cache the second walk has no unwind data: the image is gone.
      const again = await symcrash(uncached);
      expect(again.images?.['symcrash.exe']).to.equal('not found');
      expect(crashing(again)).to.not.deep.equal(first);
    } finally {
      await cached.close();
      await uncached.close();
    }
  });

  it('reads symbol files only from a path it was given (or _NT_SYMBOL_PATH), and not with symbolFiles: false', async () => {
    const none = await createSymbolSupplier({ env: {} });
    const fromEnv = await createSymbolSupplier({ env: { _NT_SYMBOL_PATH: STORE } });
    const off = await createSymbolSupplier({ symbolPath: STORE, symbolFiles: false });
    try {
      expect(none.hasSymbolFiles).to.equal(false);
      expect(fromEnv.hasSymbolFiles).to.equal(true);
      expect(off.hasSymbolFiles).to.equal(false);
      const state = await symcrash(off);
      expect(state.symbols).to.equal(undefined);
      expect(crashing(state)[0]).to.not.match(/^store_value/);
    } finally {
      await Promise.all([none.close(), fromEnv.close(), off.close()]);
    }
  });

  it('maps a recorded path one way: Z: is the unix root, C: the Wine prefix it was given', async () => {
    const supplier = await createSymbolSupplier({ winePrefix: '/p', symbolFiles: false });
    try {
      expect(supplier.localPaths('Z:\\work\\app.exe')).to.deep.equal(['/work/app.exe']);
      expect(supplier.localPaths('C:\\Windows\\ntdll.dll')).to.deep.equal([
        '/p/drive_c/Windows/ntdll.dll',
        '/p/drive_c/windows/ntdll.dll',
      ]);
    } finally {
      await supplier.close();
    }
  });
});
