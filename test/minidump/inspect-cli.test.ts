// `cdb-harness inspect` on real Wine dumps plus a bad file: the JSON validates against
// schemas/inspect.schema.json, the text names the exception and the faulting module, one bad
// file does not stop the others, and the exit code says how many failed.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { validate } from '../../src/report/schemas.js';
import { wineRigReady } from '../helpers/wine.js';
import { avDumpOnce, dumpDir, threadsDumpsOnce } from './helpers/real-dumps.js';

/** Runs the CLI in-process and captures what it writes to stdout and stderr. */
async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = (chunk: string | Uint8Array) => ((stdout += String(chunk)), true);
  process.stderr.write = (chunk: string | Uint8Array) => ((stderr += String(chunk)), true);
  try {
    const code = await main(['node', 'cdb-harness', 'inspect', ...args]);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

interface Envelope {
  schemaVersion: number;
  dumps: {
    file: string;
    ok: boolean;
    kind?: string;
    exception?: { name: string; module?: string } | null;
    error?: { code: string };
  }[];
}

describe('cdb-harness inspect', function () {
  let av = '';
  let full = '';
  let bogus = '';

  before(async function () {
    bogus = join(dumpDir(), 'not-a-dump.dmp');
    writeFileSync(bogus, 'this is a text file, not a minidump\n');
    if (!wineRigReady()) return;
    this.timeout(120_000);
    av = (await avDumpOnce()).path;
    full = (await threadsDumpsOnce()).full;
  });

  it('--json: a schema-valid envelope, the bad file listed as failed, exit 4 (partial)', async function () {
    if (!wineRigReady()) this.skip();
    const { code, stdout } = await run(av, bogus, full, '--json');
    expect(code).to.equal(4);
    const envelope = JSON.parse(stdout) as Envelope;
    const check = validate('inspect', envelope);
    expect(check.errors).to.deep.equal([]);
    expect(envelope.dumps.map((d) => [d.file, d.ok])).to.deep.equal([
      [av, true],
      [bogus, false],
      [full, true],
    ]);
    expect(envelope.dumps[0]?.exception?.name).to.equal('Access violation writing 0x10');
    expect(envelope.dumps[0]?.exception?.module).to.equal('av.exe');
    expect(envelope.dumps[1]?.error?.code).to.equal('BAD_DUMP');
    expect(envelope.dumps[2]?.kind).to.equal('full');
  });

  it('text: names the process, the exception with its address, the faulting module and the kind', async function () {
    if (!wineRigReady()) this.skip();
    const { code, stdout } = await run(av);
    expect(code).to.equal(0);
    expect(stdout).to.match(/^.*av-write-first\.dmp: minidump, written by wine/m);
    expect(stdout).to.match(/^ {2}process {3}av\.exe, pid \d+/m);
    expect(stdout).to.match(/^ {2}exception 0xc0000005 Access violation writing 0x10$/m);
    expect(stdout).to.match(/^ {2}faulting {2}av\.exe$/m);
    expect(stdout).to.match(/^ {2}modules {3}\d+ \(0 with debug ids, \d+ without\)/m);
  });

  it('exits 1 when every file fails, and reports each one on stderr with the error prefix', async function () {
    const { code, stdout, stderr } = await run(bogus, join(dumpDir(), 'missing.dmp'));
    expect(code).to.equal(1);
    expect(stderr).to.match(/^cdb-harness: .*not-a-dump\.dmp: not readable \(BAD_DUMP\): /m);
    expect(stderr).to.match(/^cdb-harness: .*missing\.dmp: not readable \(IO\): /m);
    expect(stdout).to.not.contain('not-a-dump.dmp');
  });

  it('exits 2 with no file, and --help shows examples', async function () {
    expect((await run()).code).to.equal(2);
    const help = await run('--help');
    expect(help.code).to.equal(0);
    expect(help.stdout).to.contain('cdb-harness inspect crash.dmp');
  });
});
