// No record is blamed for another's failure: two builds of one module in one batch, one with a
// PDB that breaks mid-lookup (its publics stream lies about its size). The failure is kept by
// module identity (name + GUID + age) and per dump, so the record of the dump whose PDB is good
// carries no reason from the other build, and a later dump of the bad build says it again itself.
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { moduleSymbolStatus } from '../../src/processor/symbol-status.js';
import type { ModuleRef } from '../../src/stackwalk/types.js';
import { symbolFileProvider } from '../../src/symbols/supplier/symbol-provider.js';
import { Symbolizer } from '../../src/symbols/supplier/symbolizer.js';
import { debugIdOf, writePdb, type PdbSpec } from '../helpers/pdb-builder.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const BASE = 0x10000000n;
const SPEC: Omit<PdbSpec, 'guid'> = {
  age: 1,
  modules: [{ name: 'main', procs: [{ name: 'level1', rva: 0x1000, size: 0x30 }] }],
  publics: [{ name: 'level1', rva: 0x1000 }],
};
const GOOD = { ...SPEC, guid: '11111111111111111111111111111111' };
const BAD: PdbSpec = {
  ...SPEC,
  guid: '22222222222222222222222222222222',
  // The publics header claims a 1 MB address map in a stream of a few bytes.
  edit: (streams, layout) => streams[layout.publics]?.writeUInt32LE(1 << 20, 4),
};

function ref(debugId: string): ModuleRef {
  return {
    name: 'app.dll',
    path: 'C:\\app\\app.dll',
    base: BASE,
    size: 0x8000,
    timestamp: 0x5f3a1b2c,
    codeId: '5F3A1B2C8000',
    codeView: { pdbName: 'app.pdb', debugId },
  };
}

/** One dump: the walker looks up `rva` through this dump's provider, then the status is read. */
async function analyzeOne(symbolizer: Symbolizer, debugId: string, rva: number) {
  const provider = symbolFileProvider(symbolizer);
  const hit = await provider.lookup(ref(debugId), rva);
  const warnings: string[] = [];
  const info = await moduleSymbolStatus([ref(debugId)], symbolizer, provider, warnings);
  return { info: info[0], function: hit?.function };
}

describe('symbol status: failures belong to the build and the dump that met them', () => {
  it('two builds of one module, one with a corrupt PDB: the good one is not blamed', async () => {
    const dir = makeTempDir('symnames');
    for (const spec of [GOOD, BAD]) {
      const folder = join(dir, 'store', 'app.pdb', debugIdOf(spec));
      mkdirSync(folder, { recursive: true });
      writePdb(join(folder, 'app.pdb'), spec);
    }
    const symbolizer = new Symbolizer({
      symbolPath: join(dir, 'store'),
      defaultCache: join(dir, 'cache'),
    });
    try {
      // Past level1's end: the lookup falls through to the publics, which are corrupt in BAD.
      const bad = await analyzeOne(symbolizer, debugIdOf(BAD), 0x1040);
      expect(bad.info?.status).to.equal('loaded');
      expect(bad.info?.reason).to.match(/^lookup failed: .*publics stream claims/);
      const good = await analyzeOne(symbolizer, debugIdOf(GOOD), 0x1040);
      expect(good.info).to.deep.equal({
        module: 'app.dll',
        status: 'loaded',
        format: 'pdb',
        origin: join(dir, 'store'),
      });
      expect(good.function).to.equal('level1');
      // A dump of the good build that lands inside a procedure: named, no reason either.
      const inside = await analyzeOne(symbolizer, debugIdOf(GOOD), 0x1010);
      expect(inside.info?.reason).to.equal(undefined);
      // Another dump of the bad build says why itself (its own lookup failed too).
      const again = await analyzeOne(symbolizer, debugIdOf(BAD), 0x1040);
      expect(again.info?.reason).to.match(/^lookup failed: /);
    } finally {
      await symbolizer.close();
    }
  });
});
