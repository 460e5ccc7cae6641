// MSZIP cabinets as symbol servers serve them (`NAME.pd_`): made by gcab (a real cabinet writer)
// when it is installed, and by the test's own writer (multi-block, previous block as dictionary),
// which cabextract checks when it is installed.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractCab, isCab } from '../../src/symbols/index.js';
import { writeCab } from '../helpers/cab-writer.js';

function sample(size: number): Buffer {
  // Text-like with repeats far apart, so deflate back-references cross 32 KiB block boundaries.
  const words = ['alpha', 'beta', 'gamma', 'delta', 'S_GPROC32', 'store_value', 'symcrash'];
  let seed = 1;
  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const word = `${words[seed % words.length] ?? ''}${seed % 97} `;
    parts.push(word);
    length += word.length;
  }
  return Buffer.from(parts.join('')).subarray(0, size);
}

describe('symbols: cabinets', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'cdbh-cab-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('expands a multi-block MSZIP cabinet (dictionary carried from block to block)', async () => {
    const data = sample(200_000);
    const cab = writeCab('big.pdb', data, { blockSize: 32768 });
    expect(isCab(cab)).to.equal(true);
    const out = await extractCab(cab, 'big.pd_', 1 << 20);
    expect(out.name).to.equal('big.pdb');
    expect(out.data.equals(data)).to.equal(true);
  });

  it('expands a cabinet gcab made', async function () {
    if (spawnSync('gcab', ['--version']).status !== 0) this.skip();
    const data = sample(150_000);
    writeFileSync(join(dir, 'real.pdb'), data);
    const made = spawnSync('gcab', ['-c', '-z', join(dir, 'real.pd_'), 'real.pdb'], { cwd: dir });
    expect(made.status, String(made.stderr)).to.equal(0);
    const out = await extractCab(readFileSync(join(dir, 'real.pd_')), 'real.pd_', 1 << 20);
    expect(out.name).to.equal('real.pdb');
    expect(out.data.equals(data)).to.equal(true);
  });

  it('writes cabinets cabextract accepts (the writer is checked too)', function () {
    if (spawnSync('cabextract', ['--version']).status !== 0) this.skip();
    writeFileSync(join(dir, 'w.pd_'), writeCab('w.pdb', sample(100_000)));
    const test = spawnSync('cabextract', ['-t', join(dir, 'w.pd_')], { encoding: 'utf8' });
    expect(test.status, test.stdout + test.stderr).to.equal(0);
    expect(test.stdout).to.match(/All done, no errors/);
  });

  it('refuses LZX, truncation, lies about sizes and over-limit output', async () => {
    const data = sample(70_000);
    const lzx = writeCab('x.pdb', data, { compressionType: 3 });
    expect(await refusal(() => extractCab(lzx, 'x.pd_', 1 << 20))).to.match(/LZX-compressed/);
    const good = writeCab('x.pdb', data);
    expect(
      await refusal(() => extractCab(good.subarray(0, good.length - 100), 'x.pd_', 1 << 20)),
    ).to.match(/cut short|does not inflate|inflated to/);
    expect(await refusal(() => extractCab(good, 'x.pd_', 1000))).to.match(
      /more than the 1000-byte limit/,
    );
    const lying = Buffer.from(good);
    lying.writeUInt32LE(0x7fffffff, 44); // cbFile of the one CFFILE entry
    expect(await refusal(() => extractCab(lying, 'x.pd_', 2 ** 32))).to.match(
      /data blocks cannot hold/,
    );
    expect(await refusal(() => extractCab(Buffer.from('MSCF'), 'x.pd_', 1 << 20))).to.match(
      /no MSCF header/,
    );
  });
});

async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  return 'no error';
}
