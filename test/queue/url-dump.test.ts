// Dumps given as http(s) URLs: a real HTTP server on 127.0.0.1 whose answers change between the
// producer's request (hashing) and the worker's (download), so every failure the worker must
// catch is real: 404, a body larger than what was enqueued, content that no longer matches its
// sha256. Each is that dump's failed record with the reason; a good URL gives the record a local
// analyze gives the same file; the worker leaves no downloaded dump behind. downloadDump's own
// cap and deadline are checked directly.
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { downloadDump, hashUrl } from '../../src/queue/url-dump.js';
import { runCli } from '../helpers/cli.js';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { EXAMPLES, readRecords, startWorker, type WorkerProcess } from './queue-helpers.js';

const GOOD = readFileSync(join(EXAMPLES, 'av-write-a.dmp'));
const OTHER = readFileSync(join(EXAMPLES, 'cpp-throw.dmp'));

/** GOOD with another TimeDateStamp (offset 20): its own content, so its own job. */
function variant(n: number): Buffer {
  const bytes = Buffer.from(GOOD);
  bytes.writeUInt32LE(bytes.readUInt32LE(20) + n, 20);
  return bytes;
}

/** Serves paths by request count: `/good.dmp` always, `/gone.dmp` then 404, … */
async function dumpServer(): Promise<{ url: string; server: Server; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  const server = createServer((request, response) => {
    const path = request.url ?? '';
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);
    const send = (body: Buffer) => {
      response.writeHead(200, { 'content-length': body.length });
      response.end(body);
    };
    if (path === '/good.dmp') return send(GOOD);
    if (path === '/gone.dmp' && n === 1) return send(variant(1));
    if (path === '/changed.dmp') return send(n === 1 ? variant(2) : variant(3));
    if (path === '/grown.dmp')
      return send(n === 1 ? variant(4) : Buffer.concat([variant(4), OTHER]));
    if (path === '/slow.dmp') {
      response.writeHead(200, { 'content-length': GOOD.length });
      response.write(GOOD.subarray(0, 100));
      return; // never finishes
    }
    response.writeHead(404);
    response.end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, hits };
}

describe('URL dumps through the queue (real HTTP server, real Redis)', function () {
  this.timeout(180_000);
  let redis: RedisServer | undefined;
  let http: Awaited<ReturnType<typeof dumpServer>> | undefined;
  let worker: WorkerProcess | undefined;

  before(async function () {
    if (!redisAvailable()) this.skip();
    redis = await RedisServer.start();
    http = await dumpServer();
  });
  after(async () => {
    await worker?.stop('SIGKILL');
    http?.server.closeAllConnections();
    await new Promise((resolve) => http?.server.close(resolve));
    await redis?.stop();
  });

  it('analyses a good URL like the local file, and gives each bad one a failed record', async () => {
    worker = startWorker(['--queue', redis!.url, '--engine', 'builtin']);
    await worker.waitFor((l) => l.type === 'ready', 'ready line');
    const out = makeTempDir('queue-url-out');
    const urls = ['good', 'missing', 'gone', 'changed', 'grown'].map(
      (n) => `${http!.url}/${n}.dmp`,
    );
    const run = await runCli([
      'analyze',
      ...urls,
      '--queue',
      redis!.url,
      '--engine',
      'builtin',
      '--out',
      out,
    ]);
    expect(run.code, run.stderr).to.equal(4);
    const byName = new Map(readRecords(out).map((r) => [r.file.split('/').pop(), r]));
    expect([...byName.keys()].sort()).to.deep.equal([
      'changed.dmp',
      'gone.dmp',
      'good.dmp',
      'grown.dmp',
      'missing.dmp',
    ]);
    const local = makeTempDir('queue-url-local');
    const localRun = await runCli([
      'analyze',
      join(EXAMPLES, 'av-write-a.dmp'),
      '--engine',
      'builtin',
      '--out',
      local,
    ]);
    expect(localRun.code, localRun.stderr).to.equal(0);
    const good = byName.get('good.dmp');
    expect(good?.ok).to.equal(true);
    expect(good?.file).to.equal(`${http!.url}/good.dmp`);
    expect(good?.bucket?.id).to.equal(readRecords(local)[0]?.bucket?.id);
    // The producer could not fetch it at all.
    expect(byName.get('missing.dmp')?.error?.message).to.match(/HTTP 404/);
    // Fetched by the producer, gone when the worker came.
    expect(byName.get('gone.dmp')?.error?.message).to.match(/HTTP 404/);
    expect(byName.get('changed.dmp')?.error?.message).to.match(/does not match what was enqueued/);
    expect(byName.get('grown.dmp')?.error?.message).to.match(/too large/);
    for (const name of ['missing.dmp', 'gone.dmp', 'changed.dmp', 'grown.dmp']) {
      expect(byName.get(name)).to.include({ ok: false });
      expect(byName.get(name)?.error?.code, name).to.equal('IO');
    }
    // Every download was deleted after its analysis (or its failure).
    expect(readdirSync(worker.tmp).filter((e) => e.startsWith('cdbh-'))).to.deep.equal([]);
  });

  it('caps a download and ends one that stalls, leaving no file behind', async () => {
    const parent = makeTempDir('queue-dl');
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = parent;
    try {
      const expected = await hashUrl(`${http!.url}/good.dmp`, {
        maxBytes: 1 << 30,
        timeoutMs: 10_000,
      });
      let error: unknown;
      await downloadDump(`${http!.url}/good.dmp`, expected, {
        maxBytes: 1000,
        timeoutMs: 10_000,
      }).catch((e: unknown) => (error = e));
      expect(String(error)).to.match(/too large/);
      error = undefined;
      await downloadDump(`${http!.url}/slow.dmp`, expected, {
        maxBytes: 1 << 30,
        timeoutMs: 1_000,
      }).catch((e: unknown) => (error = e));
      expect(String(error)).to.match(/took longer than 1 s/);
      const ok = await downloadDump(`${http!.url}/good.dmp`, expected, {
        maxBytes: 1 << 30,
        timeoutMs: 10_000,
      });
      expect(readFileSync(ok.path).equals(GOOD)).to.equal(true);
      await ok.remove();
      expect(existsSync(ok.path)).to.equal(false);
      expect(readdirSync(parent)).to.deep.equal([]);
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
  });
});
