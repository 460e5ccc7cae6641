// Names from dumps reach the terminal escaped (issue 30, item 6): a module name holding an OSC
// (window title), a CSI (clear screen) and a newline followed by a forged line, and a dump file
// name with a newline that forged a summary line (`FAKE: 0 failed.dmp`). The real CLI runs in a
// real pseudo-terminal (node-pty) and what the terminal receives is checked: no ESC, no C1 byte,
// no line the dump forged. The JSON keeps the raw names.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadNodePty } from '../../src/pty/node-pty.js';
import { escapeControls, escapeStrings } from '../../src/report/terminal-text.js';
import { DumpBuilder, struct } from '../minidump/helpers/dump-builder.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

const HOSTILE = 'C:\\app\\\x1b]0;pwned\x07evil\x1b[2J\x9b31m\nFAKE: 0 failed.dll';

/** A dump of one module whose name is HOSTILE (SystemInfo amd64, ModuleList). */
function hostileNameDump(): Buffer {
  const b = new DumpBuilder(2);
  b.stream(
    7,
    struct(56, (s) => {
      s.writeUInt16LE(9, 0);
      s.writeUInt8(1, 6);
      s.writeUInt32LE(10, 8);
      s.writeUInt32LE(2, 20);
    }),
  );
  const name = b.string(HOSTILE);
  const list = Buffer.alloc(4 + 108);
  list.writeUInt32LE(1, 0);
  list.writeBigUInt64LE(0x140000000n, 4);
  list.writeUInt32LE(0x10000, 12);
  list.writeUInt32LE(name, 4 + 20);
  b.stream(4, list);
  return b.build();
}

/** Runs the CLI in a pseudo-terminal; everything the terminal received. */
async function inTerminal(args: string[]): Promise<string> {
  const pty = loadNodePty();
  const term = pty.spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'test', 'analyze', 'run-cli.ts'), ...args],
    { cols: 200, rows: 50, cwd: REPO_ROOT, env: { ...process.env, TERM: 'dumb' } },
  );
  let seen = '';
  term.onData((data) => (seen += data));
  await new Promise<void>((resolve) => term.onExit(() => resolve()));
  return seen;
}

describe('terminal text (src/report/terminal-text.ts)', function () {
  this.timeout(120_000);

  it('writes every control character out as an escape, and leaves other text alone', () => {
    expect(escapeControls('a\x1b[2Jb\nc\x9bd\x7f\té')).to.equal('a\\x1b[2Jb\\nc\\x9bd\\x7f\\té');
    expect(escapeControls('plain ü 中')).to.equal('plain ü 中');
    const deep = escapeStrings({ list: [{ name: 'x\ny' }], n: 1 });
    expect(JSON.stringify(deep)).to.equal('{"list":[{"name":"x\\\\ny"}],"n":1}');
  });

  it('inspect and analyze print no control character a dump holds, on a real terminal', async () => {
    const dir = makeTempDir('terminal-names');
    const file = join(dir, 'evil\x1b]0;title\x07\nFAKE: 0 failed.dmp');
    writeFileSync(file, hostileNameDump());
    // Not a dump: listed as failed in the summary, by its name.
    writeFileSync(join(dir, 'bad\x1b[31m\nFAKE: 0 failed.dmp'), 'not a dump');
    const inspected = await inTerminal(['inspect', '--verbose', file]);
    const analyzed = await inTerminal([
      'analyze',
      dir,
      '--engine',
      'builtin',
      '--out',
      join(dir, 'out'),
    ]);
    for (const seen of [inspected, analyzed]) {
      // Our own line ends only (CR LF from the terminal); no ESC, BEL or C1 byte from the dump.
      // eslint-disable-next-line no-control-regex
      expect(seen.replace(/\r\n/g, '\n')).to.not.match(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
      expect(seen.split(/\r?\n/).some((line) => line.startsWith('FAKE:'))).to.equal(false);
    }
    expect(inspected).to.include('evil\\x1b[2J\\x9b31m\\nFAKE: 0 failed.dll');
    expect(analyzed).to.include('bad\\x1b[31m\\nFAKE: 0 failed.dmp');
    // The JSON keeps the raw name.
    const json = await inTerminal(['inspect', '--json', file]);
    expect(json).to.include(JSON.stringify(HOSTILE).slice(1, -1));
  });
});
