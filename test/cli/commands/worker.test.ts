// `cdb-harness worker` without its engine refuses to start (exit 3, the install hint) before it
// ever connects to Redis: before, a --debugger that did not exist was taken as given, and the
// worker took jobs only to fail each one. The queue URL points at a local TCP server that counts
// connections: none may arrive.
import { expect } from 'chai';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

describe('cli/commands/worker: no engine, no start', function () {
  this.timeout(60_000);
  let server: Server;
  let connections = 0;
  let url = '';

  before(async () => {
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `redis://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((done) => server.close(() => done())));
  beforeEach(() => (connections = 0));

  const env = (extra: NodeJS.ProcessEnv = {}) => {
    const clean = { ...process.env, ...extra };
    delete clean['CDB_PATH'];
    return clean;
  };

  it('--engine winedbg with no winedbg on PATH: exit 3, the install hint, Redis untouched', async () => {
    const run = await runCli(['worker', '--queue', url, '--engine', 'winedbg'], {
      env: env({ PATH: makeTempDir('empty-path') }),
    });
    expect(run.code, run.stderr).to.equal(3);
    expect(run.stderr).to.match(
      /winedbg was not found on PATH\. It comes with Wine: .*apt-get install wine/,
    );
    expect(connections).to.equal(0);
  });

  it('--debugger naming a file that does not exist: exit 3, the install hint, Redis untouched', async () => {
    const missing = join(makeTempDir('no-cdb'), 'cdb.exe');
    const run = await runCli(['worker', '--queue', url, '--engine', 'cdb', '--debugger', missing], {
      env: env(),
    });
    expect(run.code, run.stderr).to.equal(3);
    expect(run.stderr).to.include(`--debugger ${missing}: ${missing} does not exist`);
    expect(run.stderr).to.match(/Debugging Tools for Windows/);
    expect(connections).to.equal(0);
  });

  it('--engine cdb where no cdb is found: exit 3, Redis untouched', async () => {
    const run = await runCli(['worker', '--queue', url, '--engine', 'cdb'], { env: env() });
    expect(run.code, run.stderr).to.equal(3);
    expect(run.stderr).to.match(/cdb\.exe/);
    expect(connections).to.equal(0);
  });
});
