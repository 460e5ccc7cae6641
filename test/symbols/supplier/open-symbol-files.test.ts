// The batch's budget of open symbol files on its own: least recently used first, never a file a
// read holds, never the last one, and every descriptor closed by closeAll().
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PositionedFileReader } from '../../../src/minidump/file-reader.js';
import { OpenSymbolFiles } from '../../../src/symbols/supplier/open-symbol-files.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

async function readers(count: number): Promise<PositionedFileReader[]> {
  const dir = makeTempDir('open-symbol-files');
  const out: PositionedFileReader[] = [];
  for (let i = 0; i < count; i++) {
    writeFileSync(join(dir, `f${i}.sym`), `MODULE windows x86 ${i} f${i}.pdb\n`);
    out.push(await PositionedFileReader.open(join(dir, `f${i}.sym`)));
  }
  return out;
}

describe('symbols: open symbol files within a budget', () => {
  it('closes the least recently used files that no read holds, and tells which', async () => {
    const [a, b, c, d] = await readers(4);
    const evicted: string[] = [];
    const files = new OpenSymbolFiles(2, (key) => evicted.push(key));
    await files.keep('a', a!, 1);
    await files.keep('b', b!, 1);
    files.hold('a'); // a is read: b is now the least recently used, and a may not close
    await files.keep('c', c!, 1);
    expect(evicted).to.deep.equal(['b']);
    await files.keep('d', d!, 1);
    expect(evicted).to.deep.equal(['b', 'c']);
    expect(files.size).to.equal(2);
    await files.release('a');
    await files.closeAll();
    expect(files.size).to.equal(0);
    // A closed reader refuses reads: every file was closed, the evicted ones included.
    for (const r of [a!, b!, c!, d!]) {
      let failed = false;
      await r.read(0, 4).catch(() => (failed = true));
      expect(failed, r.path).to.equal(true);
    }
  });

  it('keeps the file just asked for even when it alone is over the budget', async () => {
    const [a, b] = await readers(2);
    const evicted: string[] = [];
    const files = new OpenSymbolFiles(0, (key) => evicted.push(key));
    await files.keep('a', a!, 10);
    expect(files.size).to.equal(1);
    await files.keep('b', b!, 10);
    expect(evicted).to.deep.equal(['a']);
    expect(files.size).to.equal(1);
    await files.closeAll();
  });
});
