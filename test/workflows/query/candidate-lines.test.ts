// The lines of a records file a search could match (query, issue 34): every line the finder hits
// and no other, whole across the reads (1 MiB each, two buffers read into in turn) and the windows
// (64 KiB), decoded as UTF-8 when not ASCII, the last line without its newline too; every line
// counted; a search given up early closes the file.
import { expect } from 'chai';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { candidateLines } from '../../../src/workflows/query/candidate-lines.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

async function read(path: string, finder?: RegExp) {
  const counts = { lines: 0 };
  const lines: string[] = [];
  for await (const window of candidateLines(path, finder, counts)) lines.push(...window);
  return { lines, counts };
}

describe('candidateLines: the lines of a file a search could match', () => {
  // Lines of 1 byte to 1.5 MB, some hit, one not ASCII, across many reads and windows.
  const lines = Array.from({ length: 400 }, (_, i) => {
    const pad = i % 97 === 0 ? 1_500_000 : (i * 7919) % 20_000;
    return `{"i":${i},"pad":"${'x'.repeat(pad)}","tag":"${i % 3 === 0 ? 'HIT' : 'miss'}-ä${i}"}`;
  });
  let path = '';
  before(() => {
    path = join(makeTempDir('candidate-lines'), 'records.ndjson');
    // The last line has no newline: a run cut short.
    writeFileSync(path, lines.join('\n'));
  });

  it('gives every line the finder hits, whole and decoded, and counts them all', async () => {
    const { lines: hits, counts } = await read(path, /hit-/gi);
    expect(hits).to.deep.equal(lines.filter((_, i) => i % 3 === 0));
    expect(counts.lines).to.equal(lines.length);
    const all = await read(path);
    expect(all.lines).to.deep.equal(lines);
  });

  it('closes the file when the search stops early', async () => {
    // The process's open files (Linux): the same after the search as before it.
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    const counts = { lines: 0 };
    const search = candidateLines(path, /hit-/gi, counts);
    const first = await search.next();
    expect(first.done).to.equal(false);
    await search.return(undefined);
    expect(counts.lines).to.be.below(lines.length);
    expect(open()).to.equal(before);
  });
});
