// A third debugger is one folder: the test-only dialect in test/engine/fixtures/dialects/fakedbg/
// drives a debugger with a prompt neither cdb nor winedbg has, through the same engine, with no
// change anywhere else. And the registry knows only the dialects it lists: an unknown name is an
// error, never silently another debugger.
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DebuggerSession } from '../../src/engine/debugger-session.js';
import {
  DIAGNOSTICS_TOOL_FOLDERS,
  DIALECT_NAMES,
  getDialect,
  isDialectName,
} from '../../src/engine/dialects/index.js';
import { UsageError } from '../../src/errors.js';
import { fakeDialect } from './fixtures/dialects/fakedbg/index.js';

const DIALECTS_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'src',
  'engine',
  'dialects',
);
const FAKE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'fake-debugger.js');

describe('a third dialect (test-only folder)', function () {
  this.timeout(20_000);
  let session: DebuggerSession | undefined;

  afterEach(async () => {
    await session?.kill();
    session = undefined;
  });

  it('is driven by the engine from its folder alone: framing, go, break-in and the end', async () => {
    session = await DebuggerSession.start({
      dialect: fakeDialect,
      target: { kind: 'none' },
      debuggerCommandPrefix: { file: process.execPath, args: [FAKE, '--prompt', 'fake>'] },
      startTimeoutMs: 10_000,
      commandTimeoutMs: 5_000,
    });
    expect(session.dialect.name).to.equal('fakedbg');
    expect(session.banner).to.equal('fake debugger starting');
    expect((await session.execute('echo one two')).lines).to.deep.equal(['one two']);
    expect((await session.execute('spew 2')).lines).to.deep.equal(['line 0', 'line 1']);
    await session.go();
    expect(session.state).to.equal('running');
    const stop = await session.interrupt({ timeoutMs: 5000 });
    expect(stop.kind).to.equal('break-in');
    expect((await session.execute('echo after')).lines).to.deep.equal(['after']);
    const end = await session.close();
    expect(end.forced).to.equal(false);
    expect(end.exitCode).to.equal(0);
  });

  it('an unknown dialect name is a UsageError naming the known ones, never another debugger', () => {
    expect(isDialectName('fakedbg')).to.equal(false);
    expect(() => getDialect('fakedbg')).to.throw(UsageError, /cdb, winedbg/);
    expect(() => getDialect('toString')).to.throw(UsageError);
    // The registry holds exactly the dialect folders of src/engine/dialects (common/ is shared code;
    // the diagnostics-channel tools drive no debugger session and are listed apart).
    const tools: readonly string[] = DIAGNOSTICS_TOOL_FOLDERS;
    const folders = readdirSync(DIALECTS_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'common')
      .map((entry) => entry.name)
      .filter((name) => !tools.includes(name));
    for (const tool of tools) expect(isDialectName(tool), tool).to.equal(false);
    expect([...DIALECT_NAMES].sort()).to.deep.equal(folders.sort());
    for (const name of DIALECT_NAMES) expect(getDialect(name).name).to.equal(name);
  });
});
