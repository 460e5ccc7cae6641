// The symbolizer against hostile names from dumps and a real local HTTP symbol server that
// answers every path (so a client would write whatever it asked for): every request stays under
// the server's path prefix, every file written stays inside the cache folder, and a name that
// cannot be made safe is refused with the reason in the module's symbol status.
import { expect } from 'chai';
import { mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { SymbolModule } from '../../../src/symbols/supplier/module-identity-key.js';
import { symbolFileProvider } from '../../../src/symbols/supplier/symbol-provider.js';
import { Symbolizer } from '../../../src/symbols/supplier/symbolizer.js';
import { startSymbolServer, type SymbolServer } from '../../helpers/symbol-server.js';
import { symbolModule, TEST_DEBUG_ID } from '../../helpers/symbol-module.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const ID = TEST_DEBUG_ID;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name));
}

function dirsUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(e.parentPath, e.name));
}

describe('symbols: symbolizer with hostile names from dumps', () => {
  let dir: string;
  let server: SymbolServer;
  let symbolizer: Symbolizer;
  beforeEach(async () => {
    dir = makeTempDir('symbolizer');
    mkdirSync(join(dir, 'www'));
    mkdirSync(join(dir, 'work', 'cache'), { recursive: true });
    server = await startSymbolServer(join(dir, 'www'), 'any');
    symbolizer = new Symbolizer({
      symbolPath: `srv*${join(dir, 'work', 'cache')}*${server.url}/prefix/store`,
      defaultCache: join(dir, 'work', 'default'),
    });
  });
  afterEach(async () => {
    await symbolizer.close();
    await server.close();
  });

  const refused: [string, string, RegExp][] = [
    ['..', ID, /PDB name "\.\." refused: its file name is "\.\."/],
    ['.', ID, /refused: its file name is "\."/],
    ['..app.pdb', ID, /refused: it starts with "\.\."/],
    ['app\0.pdb', ID, /refused: it holds a NUL character/],
    ['C:', ID, /refused: no file name in it/],
    ['x'.repeat(300), ID, /refused: longer than 200 bytes/],
    ['app.pdb', `${ID}/..`, /debug id .* refused/],
    ['app.pdb', '..', /debug id .* refused/],
    ['app.pdb', 'C:\\x', /debug id .* refused/],
  ];
  for (const [pdbName, debugId, why] of refused) {
    it(`refuses PDB name ${JSON.stringify(pdbName.slice(0, 20))} / id ${JSON.stringify(debugId.slice(-6))}, asks nobody`, async () => {
      const state = await symbolizer.forModule(symbolModule(pdbName, debugId));
      expect(state.ok).to.equal(false);
      if (!state.ok) expect(state.reason).to.match(why);
      expect(server.requests).to.deep.equal([]);
      expect(filesUnder(dir).filter((f) => !f.startsWith(join(dir, 'www')))).to.deep.equal([]);
    });
  }

  it('reduces paths, drive letters and odd characters to one segment inside cache and prefix', async () => {
    const names = [
      'C:\\build\\out\\app.pdb',
      'sub/dir/App.pdb',
      'C:app2.pdb',
      'a b#c.pdb',
      '%2e%2e',
      'APP.PDB',
      'app.pdb',
    ];
    for (const name of names) {
      const state = await symbolizer.forModule(symbolModule(name));
      // The server's bytes are not a PDB: refused as corrupt, but only after the download.
      expect(state.ok, name).to.equal(false);
    }
    expect(server.rawRequests.length).to.be.greaterThan(0);
    for (const raw of server.rawRequests) {
      const path = new URL(raw, server.url).pathname;
      expect(path, raw).to.match(/^\/prefix\/store\/[^/]+\/[0-9A-F]+\/[^/]+$/);
      expect(path.split('/'), raw).to.not.include('..');
    }
    expect(server.requests).to.include(`/prefix/store/app.pdb/${ID}/app.pdb`);
    expect(server.requests).to.include(`/prefix/store/a b#c.pdb/${ID}/a b#c.pdb`);
    expect(server.requests).to.include(`/prefix/store/%2e%2e/${ID}/%2e%2e`);
    // Names differing only in case are asked for as written, each in its own place.
    expect(server.requests).to.include(`/prefix/store/APP.PDB/${ID}/APP.PDB`);
    // Nothing written outside the cache folder, no folder made outside it.
    const cache = join(dir, 'work', 'cache');
    const outside = [...filesUnder(join(dir, 'work')), ...dirsUnder(join(dir, 'work'))].filter(
      (f) => f !== cache && relative(cache, f).startsWith('..'),
    );
    expect(outside).to.deep.equal([]);
    expect(readdirSync(dir).sort()).to.deep.equal(['work', 'www']);
    // Every download was rejected (not a PDB): none stays in the cache.
    expect(filesUnder(cache)).to.deep.equal([]);
  });
});

describe('symbols: symbolizer memory stays bounded', () => {
  it('forgets the oldest modules without symbols past its bound, and asks again when one returns', async () => {
    const dir = makeTempDir('symbolizer-bound');
    const symbolizer = new Symbolizer({
      symbolPath: join(dir, 'store'),
      defaultCache: join(dir, 'cache'),
      maxRemembered: 4,
    });
    try {
      const first = symbolModule('first.pdb');
      const asked = symbolizer.forModule(first);
      expect((await asked).ok).to.equal(false);
      expect(symbolizer.forModule(first)).to.equal(asked); // remembered while within the bound
      for (let i = 0; i < 8; i++) await symbolizer.forModule(symbolModule(`other${i}.pdb`));
      const again = symbolizer.forModule(first);
      expect(again).to.not.equal(asked); // forgotten, so looked up afresh
      expect(await again).to.deep.equal(await asked);
    } finally {
      await symbolizer.close();
    }
  });

  // Five builds, each with its own .sym file in a flat store: `MODULE` names the build.
  function symStore(dir: string, count: number): SymbolModule[] {
    mkdirSync(join(dir, 'store'));
    const modules: SymbolModule[] = [];
    for (let i = 0; i < count; i++) {
      const id = `${String(i).padStart(32, '0')}1`;
      writeFileSync(
        join(dir, 'store', `lib${i}.sym`),
        `MODULE windows x86_64 ${id} lib${i}.pdb\nFUNC 1000 40 0 function_of_lib${i}\n`,
      );
      modules.push(symbolModule(`lib${i}.pdb`, id, `lib${i}.dll`));
    }
    return modules;
  }

  /** This process's descriptors open on files under `dir` (Linux: /proc/self/fd). */
  function fdsUnder(dir: string): number {
    let n = 0;
    for (const fd of readdirSync('/proc/self/fd')) {
      try {
        if (readlinkSync(join('/proc/self/fd', fd)).startsWith(dir)) n++;
      } catch {
        // The descriptor readdir itself used is gone by now.
      }
    }
    return n;
  }

  it('keeps at most its budget of symbol files open, and names a module again after closing its file', async () => {
    const dir = makeTempDir('symbolizer-open');
    const modules = symStore(dir, 5);
    // Two .sym files' page caches (1 MiB each).
    const symbolizer = new Symbolizer({
      symbolPath: join(dir, 'store'),
      defaultCache: join(dir, 'cache'),
      maxOpenBytes: 2 << 20,
    });
    try {
      for (const [i, m] of modules.entries()) {
        expect(await symbolizer.lookup(m, 0x1010)).to.deep.include({
          function: `function_of_lib${i}`,
        });
        expect(symbolizer.openFiles).to.be.at.most(2);
        expect(fdsUnder(join(dir, 'store'))).to.be.at.most(2);
      }
      // lib0's file was closed for the later ones: asked again, it is found and opened again.
      expect(await symbolizer.lookup(modules[0]!, 0x1010)).to.deep.include({
        function: 'function_of_lib0',
      });
    } finally {
      await symbolizer.close();
    }
    expect(fdsUnder(join(dir, 'store'))).to.equal(0);
  });

  it('lookups answered from memory keep the budget and mark their file most recently used', async () => {
    const dir = makeTempDir('symbolizer-lru');
    const modules = symStore(dir, 4).map((m) => ({ ...m, base: 0x10000000n }));
    const symbolizer = new Symbolizer({
      symbolPath: join(dir, 'store'),
      defaultCache: join(dir, 'cache'),
      maxOpenBytes: 2 << 20, // two .sym files
    });
    try {
      const provider = symbolFileProvider(symbolizer);
      const [lib0, lib1, lib2, lib3] = modules;
      await provider.lookup(lib0!, 0x1010);
      await provider.lookup(lib1!, 0x1010);
      // From memory (no promise), and lib0 is now the most recently used of the two...
      expect(provider.lookup(lib0!, 0x1010)).to.deep.include({ function: 'function_of_lib0' });
      await provider.lookup(lib2!, 0x1010);
      // ...so opening lib2 closed lib1's file, not lib0's.
      expect(symbolizer.answerNow(lib0!)?.ok).to.equal(true);
      expect(symbolizer.answerNow(lib1!)).to.equal(undefined);
      expect(symbolizer.openFiles).to.equal(2);
      // Every module, in any order, still gets its name, within the budget.
      for (const m of [lib3, lib1, lib0, lib3, lib2, lib1]) {
        const hit = await provider.lookup(m!, 0x1010);
        expect(hit).to.deep.include({ function: `function_of_${m!.name.replace('.dll', '')}` });
        expect(symbolizer.openFiles).to.be.at.most(2);
      }
      expect(provider.failures.size).to.equal(0);
    } finally {
      await symbolizer.close();
    }
  });

  it('never closes a file under a lookup: concurrent lookups over more files than the budget all get their names', async () => {
    const dir = makeTempDir('symbolizer-busy');
    const modules = symStore(dir, 5);
    const symbolizer = new Symbolizer({
      symbolPath: join(dir, 'store'),
      defaultCache: join(dir, 'cache'),
      maxOpenBytes: 1, // below one file: only files being read stay open
    });
    try {
      const asked = modules.flatMap((m) => [m, m, m]);
      const names = await Promise.all(asked.map((m) => symbolizer.lookup(m, 0x1010)));
      expect(names.map((n) => ('function' in n ? n.function : n.missing))).to.deep.equal(
        asked.map((m) => `function_of_${m.name.replace('.dll', '')}`),
      );
      expect(symbolizer.openFiles).to.equal(1);
    } finally {
      await symbolizer.close();
    }
  });
});
