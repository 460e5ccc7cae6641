// Symbol-server redirects (issue 30, item 13): which hops a download follows. The policy table on
// URLs, then download() against real HTTP servers on loopback (port 0): a redirect to another
// host over plain http was followed before; now it is refused, and the server it pointed at is
// never asked.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IoError } from '../../src/errors.js';
import { download } from '../../src/symbols/download.js';
import {
  isInternal,
  redirectRefusal,
  type RedirectPolicy,
} from '../../src/symbols/redirect-policy.js';

const refusal = (from: string, to: string, policy: RedirectPolicy) =>
  redirectRefusal(new URL(from), new URL(to), policy);

describe('symbol redirect policy', () => {
  // msdl.microsoft.com sends every file to a blob store host, over https
  // (https://github.com/MicrosoftDocs/windows-driver-docs/issues/1966 quotes one such Location).
  const msdl = 'https://msdl.microsoft.com/download/symbols/asycfilt.pdb/16A1/asycfilt.pdb';
  const blob = 'https://vsblobprodscussu5shard2.blob.core.windows.net/b-4712/A7E8.blob?sv=2017';

  it('by default follows Microsoft’s public server to its CDN, and same-host hops', () => {
    expect(refusal(msdl, blob, 'https')).to.equal(null);
    expect(refusal('http://sym.example/a', 'https://sym.example/b', 'https')).to.equal(null);
    expect(refusal('http://sym.example/a', 'http://sym.example:8080/b', 'same-host')).to.equal(
      null,
    );
  });

  it('by default refuses plain http to another host, https → http, and public → internal', () => {
    expect(refusal(msdl, 'http://cdn.example/x', 'https')).to.match(/plain http/);
    expect(refusal(msdl, 'http://msdl.microsoft.com/x', 'https')).to.match(/plain http/);
    for (const internal of [
      'https://127.0.0.1/x',
      'https://localhost:8443/x',
      'https://10.1.2.3/x',
      'https://172.20.0.1/x',
      'https://192.168.1.10/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
      'https://[fd00::1]/x',
      'https://[fe80::1]/x',
      'https://[::ffff:10.0.0.1]/x',
      'https://0x7f.1/x',
      'https://2130706433/x',
    ]) {
      expect(refusal(msdl, internal, 'https'), internal).to.match(/loopback, private/);
    }
    // A local store may send to itself or its neighbours.
    expect(refusal('https://localhost:9/a', 'https://127.0.0.1:10/b', 'https')).to.equal(null);
  });

  it('same-host refuses every other host; any follows everything but non-http schemes', () => {
    expect(refusal(msdl, blob, 'same-host')).to.equal('another host');
    expect(refusal(msdl, 'http://msdl.microsoft.com/x', 'same-host')).to.match(/downgraded/);
    expect(refusal(msdl, 'http://127.0.0.1/x', 'any')).to.equal(null);
    expect(refusal(msdl, 'file:///etc/passwd', 'any')).to.match(/not http/);
  });

  it('names internal hosts by what the URL says', () => {
    expect(isInternal('100.64.0.1')).to.equal(true);
    expect(isInternal('172.32.0.1')).to.equal(false);
    expect(isInternal('8.8.8.8')).to.equal(false);
    expect(isInternal('msdl.microsoft.com')).to.equal(false);
    expect(isInternal('a.localhost')).to.equal(true);
  });
});

describe('download() redirects (real HTTP servers on loopback)', () => {
  const servers: Server[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  });

  /** A server on 127.0.0.1:0; `route` answers each path; requests are recorded. */
  async function serve(
    route: (path: string, base: string) => { status: number; location?: string; body?: string },
  ): Promise<{ base: string; requests: string[] }> {
    const requests: string[] = [];
    let base = '';
    const server = createServer((req, res) => {
      const path = req.url ?? '/';
      requests.push(path);
      const answer = route(path, base);
      res.writeHead(
        answer.status,
        answer.location === undefined ? {} : { location: answer.location },
      );
      res.end(answer.body ?? '');
    });
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { base, requests };
  }

  async function get(url: string, redirects?: RedirectPolicy): Promise<string> {
    const chunks: Buffer[] = [];
    const result = await download(fetch, url, {
      signal: AbortSignal.timeout(10_000),
      maxBytes: 1 << 20,
      write: (chunk) => {
        chunks.push(Buffer.from(chunk));
        return Promise.resolve();
      },
      ...(redirects === undefined ? {} : { redirects }),
    });
    if (!result.found) return `status ${result.status}`;
    return Buffer.concat(chunks).toString();
  }

  it('follows a redirect on the same host', async () => {
    const store = await serve((path) =>
      path === '/a.pdb' ? { status: 302, location: '/blobs/a' } : { status: 200, body: 'PDB' },
    );
    expect(await get(`${store.base}/a.pdb`)).to.equal('PDB');
    expect(store.requests).to.deep.equal(['/a.pdb', '/blobs/a']);
  });

  it('refuses a redirect to another host over http, and never asks that host', async () => {
    const elsewhere = await serve(() => ({ status: 200, body: 'NOT-A-PDB' }));
    // `localhost` and `127.0.0.1` are two host names for one machine: another host to the policy.
    const store = await serve(() => ({ status: 302, location: `${elsewhere.base}/x` }));
    const localhostUrl = `${store.base.replace('127.0.0.1', 'localhost')}/a.pdb`;
    let caught: unknown;
    try {
      await get(localhostUrl);
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(IoError);
    expect((caught as Error).message).to.include('not followed (another host over plain http)');
    expect((caught as Error).message).to.include('--symbol-redirects any');
    expect(elsewhere.requests).to.deep.equal([]);
    // The user's `any` follows it, as before.
    expect(await get(localhostUrl, 'any')).to.equal('NOT-A-PDB');
    expect(elsewhere.requests).to.deep.equal(['/x']);
  });

  it('refuses more than 5 hops, and a redirect without a Location', async () => {
    const loop = await serve((path) => ({
      status: 307,
      location: `/hop${Number(path.slice(4) || '0') + 1}`,
    }));
    let message = '';
    await get(`${loop.base}/hop0`).catch((error: Error) => (message = error.message));
    expect(message).to.match(/more than 5 redirects/);
    expect(loop.requests).to.have.length(6);

    const bare = await serve(() => ({ status: 302 }));
    await get(`${bare.base}/a`).catch((error: Error) => (message = error.message));
    expect(message).to.match(/redirect without a Location/);
  });
});
