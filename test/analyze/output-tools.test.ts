// The run-management side of analyze on the builtin engine (fast, no debugger): Ctrl-C, --resume,
// --shard, --merge and --rebucket, all working from records.ndjson.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { mergeOutputs, rebucketOutputs } from '../../src/workflows/analyze/outputs.js';
import { createSigner } from '../../src/report/analyze/signature.js';
import { parseShard } from '../../src/workflows/analyze/inputs.js';
import { dumpOf, folderWith, readNdjson, readSummary, tempDir } from './fixtures.js';

describe('analyze run management (resume, shard, merge, rebucket, interrupt)', function () {
  this.timeout(60_000);
  let input: string;

  before(async function () {
    this.timeout(120_000);
    input = await folderWith({
      'a.dmp': await dumpOf('av-write', 1),
      'b.dmp': await dumpOf('av-write', 2),
      'c.dmp': await dumpOf('clr-raise'),
      'd.dmp': await dumpOf('cpp-throw'),
      'e.dmp': await dumpOf('attach-break'),
    });
  });

  it('stops on abort, keeps only complete records, and marks the summary interrupted', async () => {
    const out = tempDir('abort');
    const controller = new AbortController();
    const result = await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'builtin',
      jobs: 1,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'dump') controller.abort();
      },
    });
    expect(result.interrupted).to.equal(true);
    const records = readNdjson(join(out, 'records.ndjson'));
    expect(records.length).to.be.within(1, 4);
    for (const r of records) expect(r.ok).to.equal(true);
    expect(readSummary(out)).to.include({ interrupted: true, dumps: records.length });
  });

  it('resumes: dumps whose sha256 is already recorded are skipped, the rest are added', async () => {
    const out = tempDir('resume');
    const first = await analyzeDumps({
      inputs: [join(input, 'a.dmp'), join(input, 'c.dmp')],
      outDir: out,
      engine: 'builtin',
    });
    expect(first.analyzed).to.equal(2);
    const again = await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'builtin',
      resume: true,
    });
    expect(again.skipped.resumed).to.equal(2);
    expect(again.analyzed).to.equal(3);
    expect(readNdjson(join(out, 'records.ndjson'))).to.have.length(5);
    expect(readSummary(out).dumps).to.equal(5);
  });

  it('refuses to mix a new run into a folder that has records, unless told to resume', async () => {
    const out = tempDir('refuse');
    await analyzeDumps({ inputs: [join(input, 'a.dmp')], outDir: out, engine: 'builtin' });
    let error: unknown;
    try {
      await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin' });
    } catch (e) {
      error = e;
    }
    expect(String(error)).to.match(/--resume/);
  });

  it('splits a batch into disjoint shards that merge back into the whole', async () => {
    const whole = tempDir('whole');
    await analyzeDumps({ inputs: [input], outDir: whole, engine: 'builtin' });
    const parts = [tempDir('s1'), tempDir('s2')];
    const counts: number[] = [];
    for (const [i, out] of parts.entries()) {
      const r = await analyzeDumps({
        inputs: [input],
        outDir: out,
        engine: 'builtin',
        shard: parseShard(`${i + 1}/2`),
      });
      counts.push(r.analyzed);
      expect(r.analyzed + r.skipped.otherShard).to.equal(5);
    }
    expect(counts[0]! + counts[1]!).to.equal(5);
    const merged = tempDir('merged');
    const result = await mergeOutputs(parts, merged, createSigner());
    expect(result.merged).to.equal(5);
    const a = readSummary(whole);
    const b = readSummary(merged);
    expect(b.buckets.map((x) => [x.id, x.count, x.files])).to.deep.equal(
      a.buckets.map((x) => [x.id, x.count, x.files]),
    );
  });

  it('counts a dump analysed by two folders once when merging', async () => {
    const one = tempDir('m1');
    const two = tempDir('m2');
    await analyzeDumps({ inputs: [join(input, 'a.dmp')], outDir: one, engine: 'builtin' });
    await analyzeDumps({
      inputs: [join(input, 'a.dmp'), join(input, 'c.dmp')],
      outDir: two,
      engine: 'builtin',
    });
    const merged = tempDir('m3');
    const result = await mergeOutputs([one, two], merged, createSigner());
    expect(result).to.include({ merged: 2, duplicates: 1 });
  });

  it('rebuckets stored records with a new skip list without opening a dump', async () => {
    const out = tempDir('rebucket');
    await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin' });
    const before = readSummary(out);
    // A skip list of only `av`: a new algorithm id, so every bucket id changes.
    const signer = createSigner({ skipModules: ['av'] });
    const result = await rebucketOutputs(out, signer);
    expect(result.records).to.equal(5);
    expect(result.changed).to.equal(5);
    const after = readSummary(out);
    expect(after.algorithm).to.equal(signer.algorithm);
    expect(after.buckets.reduce((n, b) => n + b.count, 0)).to.equal(
      before.buckets.reduce((n, b) => n + b.count, 0),
    );
    for (const r of readNdjson(join(out, 'records.ndjson'))) {
      expect(r.bucket?.algorithm).to.equal(signer.algorithm);
    }
    expect(readFileSync(join(out, 'report.html'), 'utf8')).to.include(signer.algorithm);
  });

  it('moves a cdbh-sig-1 folder forward to cdbh-sig-3, frames as they were stored', async () => {
    const out = tempDir('sig1');
    await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin', walkStacks: false });
    // Make it look like a run of the previous release: one frame per record, old ids.
    const lines = readFileSync(join(out, 'records.ndjson'), 'utf8').trim().split('\n');
    const old = lines.map((line) => {
      const r = JSON.parse(line) as { bucket: { algorithm: string; id: string } | null };
      if (r.bucket) r.bucket = { ...r.bucket, algorithm: 'cdbh-sig-1', id: '0000000000000000' };
      return JSON.stringify(r);
    });
    writeFileSync(join(out, 'records.ndjson'), `${old.join('\n')}\n`);
    const result = await rebucketOutputs(out, createSigner());
    expect(result.changed).to.equal(5);
    expect(readSummary(out).algorithm).to.equal('cdbh-sig-3');
    const records = readNdjson(join(out, 'records.ndjson'));
    for (const r of records) expect(r.bucket?.algorithm).to.equal('cdbh-sig-3');
    // Same crash, same bucket after the move; the stored single frame is what it is signed by.
    const a = records.find((r) => r.file.endsWith('a.dmp'));
    expect(records.find((r) => r.file.endsWith('b.dmp'))?.bucket?.id).to.equal(a?.bucket?.id);
    expect(a?.frames).to.have.length(1);
    expect(a?.bucket?.signature).to.match(/^0xc0000005 write \| av\+0x[0-9a-f]+$/);
  });

  it('skips a torn last line in records.ndjson instead of failing', async () => {
    const out = tempDir('torn');
    await analyzeDumps({ inputs: [join(input, 'a.dmp')], outDir: out, engine: 'builtin' });
    writeFileSync(join(out, 'records.ndjson'), '{"file": "/x.dmp", "sha2', { flag: 'a' });
    const result = await rebucketOutputs(out, createSigner());
    expect(result.records).to.equal(1);
  });
});
