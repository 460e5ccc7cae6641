// One supplier finds symbol files and images: with a symbol path, module images are looked for
// there too, in the same store layout (NAME/TIMESTAMPSIZE/NAME), as cdb fetches them. Here the
// store holds the Wine prefix's own system DLLs, the builds the example dump recorded.
import { expect } from 'chai';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { processDump } from '../../src/processor/process-dump.js';
import { createSymbolSupplier } from '../../src/symbols/supplier/symbol-supplier.js';
import { processSupplied } from '../helpers/supplied.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT, wineEnv, wineRigReady } from '../helpers/wine.js';

const DUMP = join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp');

describe('processDump: images from the symbol path (one supplier)', function () {
  before(function () {
    if (!wineRigReady()) this.skip();
  });

  it('walks by unwind data with system DLLs found in a symbol store, and says where they came from', async function () {
    const system32 = join(wineEnv()['WINEPREFIX'] ?? '', 'drive_c', 'windows', 'system32');
    const dir = makeTempDir('supplier-images');
    const store = join(dir, 'store');
    const without = await processSupplied(DUMP, { threads: 'exception' }, { recordedPaths: false });
    if (!without.ok) throw new Error(without.error.message);
    for (const name of ['ntdll.dll', 'kernel32.dll']) {
      const module = without.modules.find((m) => m.name === name);
      const source = join(system32, name);
      if (module === undefined || !existsSync(source)) this.skip();
      const folder = join(store, name, module.codeId);
      mkdirSync(folder, { recursive: true });
      copyFileSync(source, join(folder, name));
    }
    // One object for both: the symbol path is where images are looked for too.
    const supplier = await createSymbolSupplier({
      symbolPath: store,
      symbolCacheDir: join(dir, 'cache'),
      recordedPaths: false,
    });
    try {
      const state = await processDump(DUMP, { threads: 'exception', supplier });
      if (!state.ok) throw new Error(state.error.message);
      expect(without.images?.['ntdll.dll']).to.equal('not found');
      const ntdll = state.images?.['ntdll.dll'] ?? '';
      if (!ntdll.startsWith(store)) this.skip(); // another Wine build than the dump's
      expect(ntdll).to.equal(
        join(store, 'ntdll.dll', without.modules[1]?.codeId ?? '', 'ntdll.dll'),
      );
      const walked = (stack: (typeof state.threads)[number]['callStack']) =>
        (stack?.frames ?? []).map((f) => `${f.module?.name}!${f.symbol?.function} ${f.trust}`);
      const before = walked(without.threads.find((t) => t.faulting)?.callStack);
      const after = walked(state.threads.find((t) => t.faulting)?.callStack);
      // The thread's first function, reached by ntdll's own unwind data from the store's image.
      expect(after).to.include('ntdll.dll!RtlUserThreadStart cfi');
      expect(before).to.not.include('ntdll.dll!RtlUserThreadStart cfi');
    } finally {
      await supplier.close();
    }
  });
});
