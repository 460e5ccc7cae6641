// `cdb-harness parse` on a big log, in a child process whose heap is capped (issue 22: an 8 MB `k`
// listing took 853 MB; read whole, it dies of heap exhaustion under this cap). The log is a real
// `k` transcript body repeated.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { transcript, REPO_ROOT } from '../../parsers/transcripts.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const MB = 1024 * 1024;

/** Writes `block` repeated to `path` until it holds at least `bytes`; returns the copies. */
function writeRepeated(path: string, block: string, bytes: number): number {
  const fd = openSync(path, 'w');
  const chunk = block.repeat(Math.ceil(MB / block.length));
  let written = 0;
  let copies = 0;
  while (written < bytes) {
    written += writeSync(fd, chunk);
    copies += Math.ceil(MB / block.length);
  }
  closeSync(fd);
  return copies;
}

describe('cdb-harness parse: streaming', function () {
  this.timeout(120_000);

  it('parses an 8 MB k log under a 48 MB heap (the whole-text parse dies at 48), one entry per command, output bounded', () => {
    // misc/k-x64-notepad-with-header.txt: ~0s twice, then k (three commands per copy).
    const body = transcript('misc/k-x64-notepad-with-header.txt').body;
    const dir = makeTempDir('parse-stream');
    const log = join(dir, 'k8.log');
    const copies = writeRepeated(log, `${body.replace(/\n*$/, '')}\n`, 8 * MB);
    const out = join(dir, 'out.json');
    const fd = openSync(out, 'w');
    const child = spawnSync(
      process.execPath,
      [
        '--max-old-space-size=48',
        '--import',
        'tsx',
        join(REPO_ROOT, 'scripts', 'run-cli.ts'),
        'parse',
        log,
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' },
    );
    closeSync(fd);
    expect(child.status, child.stderr).to.equal(0);
    const inBytes = statSync(log).size;
    const outBytes = statSync(out).size;
    // About 150 bytes of indented JSON per command however short its output: 5x for this log,
    // 17x for a log of bare `0:000> k` lines; never more than that constant per input byte.
    expect(outBytes).to.be.below(20 * inBytes);
    const envelope = JSON.parse(readFileSync(out, 'utf8')) as {
      entries: { command: string | null; kind: string }[];
      events: unknown[];
    };
    expect(envelope.entries).to.have.length(3 * copies);
    expect(envelope.entries.filter((e) => e.kind === 'stack')).to.have.length(copies);
  });
});
