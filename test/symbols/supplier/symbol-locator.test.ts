// The locator against a real local HTTP store: the download size limit (a file too big is that
// file's problem, the next candidate is still tried), one download shared by parallel lookups,
// and downloads written into every downstream store with no partial files left behind.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSymbolPath } from '../../../src/symbols/index.js';
import { SymbolLocator } from '../../../src/symbols/supplier/symbol-locator.js';
import { startSymbolServer, type SymbolServer } from '../../helpers/symbol-server.js';

const ID = '0123456789ABCDEF0123456789ABCDEF1';

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe('symbols: locator over HTTP', () => {
  let dir: string;
  let server: SymbolServer;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cdbh-locator-'));
    const store = join(dir, 'store', 'app.pdb', ID);
    mkdirSync(store, { recursive: true });
    writeFileSync(join(store, 'app.pdb'), Buffer.alloc(300_000, 1)); // too big for the limit below
    writeFileSync(join(store, 'app.sym'), `MODULE windows x86_64 ${ID} app.pdb\n`);
    server = await startSymbolServer(join(dir, 'store'));
  });
  afterEach(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a file over the size limit and goes on to the next candidate', async () => {
    const cache = join(dir, 'cache');
    const { elements } = parseSymbolPath(`srv*${cache}*${server.url}`, join(dir, 'default'));
    const locator = new SymbolLocator(elements, { maxDownloadBytes: 100_000 });
    const result = await locator.locate({ name: 'app.pdb', id: ID });
    expect(result.problems).to.have.length(1);
    expect(result.problems[0]).to.match(/300000 bytes is over the 100000-byte download limit/);
    expect(result.found.map((f) => f.format)).to.deep.equal(['breakpad']);
    expect(walk(cache)).to.deep.equal([join(cache, 'app.pdb', ID, 'app.sym')]);
  });

  it('shares one download between parallel lookups and fills every downstream store', async () => {
    const one = join(dir, 'one');
    const two = join(dir, 'two');
    const { elements } = parseSymbolPath(`srv*${one}*${two}*${server.url}`, join(dir, 'default'));
    const locator = new SymbolLocator(elements, {});
    const results = await Promise.all(
      Array.from({ length: 8 }, () => locator.locate({ name: 'app.pdb', id: ID })),
    );
    expect(results.every((r) => r.found[0]?.format === 'pdb')).to.equal(true);
    expect(server.requests).to.deep.equal([`/app.pdb/${ID}/app.pdb`]);
    for (const store of [one, two]) {
      expect(walk(store)).to.deep.equal([join(store, 'app.pdb', ID, 'app.pdb')]);
      expect(readFileSync(join(store, 'app.pdb', ID, 'app.pdb')).length).to.equal(300_000);
    }
    // Found in the first downstream store next time: no request.
    const again = await new SymbolLocator(elements, {}).locate({ name: 'app.pdb', id: ID });
    expect(again.found[0]?.path).to.equal(join(one, 'app.pdb', ID, 'app.pdb'));
    expect(server.requests).to.have.length(1);
  });
});
