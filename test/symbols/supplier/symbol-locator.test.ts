// The locator against a real local HTTP store: the download size limit (a file too big is that
// file's problem, the next candidate is still tried), one download shared by parallel lookups,
// and downloads written into every downstream store with no partial files left behind.
import { expect } from 'chai';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSymbolPath } from '../../../src/symbols/index.js';
import { PARTIAL_DIR, pidAlive } from '../../../src/symbols/supplier/cache-writer.js';
import {
  plausibleSymbolBytes,
  SymbolLocator,
} from '../../../src/symbols/supplier/symbol-locator.js';
import { writeCab, writeCabBomb } from '../../helpers/cab-writer.js';
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

  it('streams a body that never ends to disk, cuts it at the limit, leaves nothing behind', async () => {
    const endless = await startSymbolServer(join(dir, 'store'), 'endless');
    try {
      const cache = join(dir, 'cache');
      const { elements } = parseSymbolPath(`srv*${cache}*${endless.url}`, join(dir, 'default'));
      const locator = new SymbolLocator(elements, { maxDownloadBytes: 4 << 20 });
      const result = await locator.locate({ name: 'app.pdb', id: ID });
      expect(result.found).to.deep.equal([]);
      expect(result.problems).to.have.length(3);
      for (const problem of result.problems) {
        expect(problem).to.match(/more than the 4194304-byte download limit/);
      }
      expect(walk(cache)).to.deep.equal([]);
    } finally {
      await endless.close();
    }
  });

  it('keeps no image that is not the one asked for (10 bytes for ntdll.dll), and says why', async () => {
    // Issue 30: a server answering every GET with 10 bytes left 10-byte images in the cache.
    const key = '5F00000012345';
    const store = join(dir, 'images', 'ntdll.dll', key);
    mkdirSync(store, { recursive: true });
    writeFileSync(join(store, 'ntdll.dll'), 'not an MZ');
    const images = await startSymbolServer(join(dir, 'images'));
    try {
      const cache = join(dir, 'cache');
      const { elements } = parseSymbolPath(`srv*${cache}*${images.url}`, join(dir, 'default'));
      const result = await new SymbolLocator(elements, {}).locate(
        { name: 'ntdll.dll', id: key },
        { image: true },
      );
      expect(result.found).to.deep.equal([]);
      expect(result.problems.join('\n')).to.match(
        /ntdll\.dll: not the image asked for \(no MZ header; wanted 5f00000012345\): not kept/,
      );
      expect(walk(cache).filter((f) => !f.includes(PARTIAL_DIR))).to.deep.equal([]);
    } finally {
      await images.close();
    }
  });

  it('refuses a cabinet bomb on its header (plausible size for the module), deletes it', async () => {
    const bombStore = join(dir, 'bomb', 'app.pdb', ID);
    mkdirSync(bombStore, { recursive: true });
    writeFileSync(join(bombStore, 'app.pd_'), writeCabBomb('app.pdb', 100_000_000));
    const bomb = await startSymbolServer(join(dir, 'bomb'));
    try {
      const cache = join(dir, 'cache');
      const { elements } = parseSymbolPath(`srv*${cache}*${bomb.url}`, join(dir, 'default'));
      // A 32 KiB module: no PDB of it is plausibly over 64 MiB.
      const result = await new SymbolLocator(elements, {}).locate(
        { name: 'app.pdb', id: ID },
        { imageSize: 0x8000 },
      );
      expect(result.found).to.deep.equal([]);
      expect(result.problems).to.deep.equal([
        `${bomb.url}/app.pdb/${ID}/app.pd_: not a usable cabinet: the file claims 100000000 bytes, more than the 67108864-byte limit`,
      ]);
      expect(walk(cache)).to.deep.equal([]);
    } finally {
      await bomb.close();
    }
  });

  it('bounds what a cabinet expands to by the limit (--symbol-max-size), keeps what fits', async () => {
    const cabStore = join(dir, 'cabs', 'app.pdb', ID);
    mkdirSync(cabStore, { recursive: true });
    writeFileSync(join(cabStore, 'app.pd_'), writeCab('app.pdb', Buffer.alloc(2 << 20, 7)));
    const cabs = await startSymbolServer(join(dir, 'cabs'));
    try {
      const cache = join(dir, 'cache');
      const { elements } = parseSymbolPath(`srv*${cache}*${cabs.url}`, join(dir, 'default'));
      const small = await new SymbolLocator(elements, { maxDownloadBytes: 1 << 20 }).locate({
        name: 'app.pdb',
        id: ID,
      });
      expect(small.problems[0]).to.match(/claims 2097152 bytes, more than the 1048576-byte limit/);
      expect(walk(cache)).to.deep.equal([]);
      const big = await new SymbolLocator(elements, { maxDownloadBytes: 4 << 20 }).locate({
        name: 'app.pdb',
        id: ID,
      });
      expect(big.found.map((f) => f.path)).to.deep.equal([join(cache, 'app.pdb', ID, 'app.pdb')]);
      expect(walk(cache)).to.deep.equal([join(cache, 'app.pdb', ID, 'app.pdb')]);
      expect(readFileSync(join(cache, 'app.pdb', ID, 'app.pdb')).equals(Buffer.alloc(2 << 20, 7)))
        .to.be.true;
    } finally {
      await cabs.close();
    }
  });

  it('a plausible symbol file: the limit, and no more than 64x the image (at least 64 MiB)', () => {
    expect(plausibleSymbolBytes(1 << 30, undefined)).to.equal(1 << 30);
    expect(plausibleSymbolBytes(1 << 30, 0x8000)).to.equal(64 << 20);
    expect(plausibleSymbolBytes(1 << 30, 4 << 20)).to.equal(256 << 20);
    expect(plausibleSymbolBytes(1 << 30, 100 << 20)).to.equal(1 << 30);
    expect(plausibleSymbolBytes(8 << 20, 0x8000)).to.equal(8 << 20);
  });

  it("removes the .part files of dead runs (and old ones) at start, keeps a live run's", async () => {
    const cache = join(dir, 'cache');
    const partial = join(cache, PARTIAL_DIR);
    mkdirSync(partial, { recursive: true });
    let dead = 4_000_000;
    while (pidAlive(dead)) dead--;
    const deadPart = join(partial, `${dead}-aa11.part`);
    const oldPart = join(partial, `${process.pid}-bb22.part`);
    const livePart = join(partial, `${process.ppid}-cc33.part`);
    const other = join(partial, 'notes.txt');
    for (const path of [deadPart, oldPart, livePart, other]) writeFileSync(path, 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(oldPart, twoHoursAgo, twoHoursAgo);
    const { elements } = parseSymbolPath(`srv*${cache}*${server.url}`, join(dir, 'default'));
    // Found nowhere and nothing downloaded: the clean-up still happens, at the run's start.
    await new SymbolLocator(elements, {}).locate({ name: 'none.pdb', id: ID });
    expect([deadPart, oldPart, livePart, other].map((p) => existsSync(p))).to.deep.equal([
      false,
      false,
      true,
      true,
    ]);
  });

  it('tries a failing server again after a pause, then says once that it is down', async () => {
    const fail = await startSymbolServer(join(dir, 'store'), 'fail');
    try {
      const cache = join(dir, 'cache');
      const { elements } = parseSymbolPath(`srv*${cache}*${fail.url}`, join(dir, 'default'));
      const down: string[] = [];
      const locator = new SymbolLocator(elements, {
        retries: 2,
        retryDelayMs: 1,
        onServerDown: (server, reason) => down.push(`${server}: ${reason}`),
      });
      const first = await locator.locate({ name: 'app.pdb', id: ID });
      // The first candidate, tried 3 times; the server is then given up on (for a while).
      expect(fail.requests).to.deep.equal(Array(3).fill(`/app.pdb/${ID}/app.pdb`));
      expect(first.problems).to.deep.equal([
        `${fail.url}/app.pdb/${ID}/app.pdb: HTTP 500 Internal Server Error (3 tries)`,
      ]);
      const second = await locator.locate({ name: 'other.pdb', id: ID });
      expect(fail.requests).to.have.length(3);
      expect(second.problems[0]).to.match(
        /not asked \(failed .*HTTP 500.*asked again after a pause\)/,
      );
      expect(down).to.deep.equal([
        `${fail.url}: ${fail.url}/app.pdb/${ID}/app.pdb: HTTP 500 Internal Server Error (3 tries)`,
      ]);
    } finally {
      await fail.close();
    }
  });

  it('a server that refuses twice and then answers: found, nothing said', async () => {
    const cache = join(dir, 'cache');
    const { elements } = parseSymbolPath(`srv*${cache}*${server.url}`, join(dir, 'default'));
    let refusals = 2;
    const down: string[] = [];
    const locator = new SymbolLocator(elements, {
      retries: 2,
      retryDelayMs: 1,
      onServerDown: (s) => down.push(s),
      // The real server behind a fetch that fails the first two calls as a refused connection does.
      fetch: (url, init) => {
        if (refusals-- > 0) {
          return Promise.reject(
            new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') }),
          );
        }
        return fetch(url, init);
      },
    });
    const result = await locator.locate({ name: 'app.pdb', id: ID });
    expect(result.found.map((f) => f.format)).to.deep.equal(['pdb']);
    expect(result.problems).to.deep.equal([]);
    expect(down).to.deep.equal([]);
  });

  it('does not retry a timeout (its deadline was spent already)', async () => {
    const hang = await startSymbolServer(join(dir, 'store'), 'hang');
    try {
      const cache = join(dir, 'cache');
      const { elements } = parseSymbolPath(`srv*${cache}*${hang.url}`, join(dir, 'default'));
      const locator = new SymbolLocator(elements, { downloadTimeoutMs: 200, retryDelayMs: 1 });
      const result = await locator.locate({ name: 'app.pdb', id: ID });
      expect(hang.requests).to.have.length(1);
      expect(result.problems[0]).to.match(/no answer before the download deadline$/);
    } finally {
      await hang.close();
    }
  });
});
