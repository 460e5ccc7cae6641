// `analyze --engine builtin` over analyze threads (worker_threads): the same records and summary
// as on one thread, hostile files included; shards, --resume and Ctrl-C keep their promises; a
// thread that dies on a dump never loses or blames a record; threads that cannot start leave the
// batch to the main thread. Every thread here is real (src/workflows/analyze/analyze-thread.ts
// run through tsx, as the CLI runs the built .js).
import { expect } from 'chai';
import { copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  AnalyzeDumpRecord,
  AnalyzeSummary,
} from '../../../src/report/analyze/analyze-record.js';
import { analyzeThreadPool } from '../../../src/workflows/analyze/analyze-threads.js';
import {
  analyzeDumps,
  type AnalyzeEvent,
  type AnalyzeOptions,
} from '../../../src/workflows/analyze/analyze.js';
import { manyModulesDump } from '../../helpers/hostile-dumps.js';
import { REPO_ROOT } from '../../helpers/wine.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { addCorruptInputs, readNdjson, readSummary } from '../../analyze/fixtures.js';

const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');
const examples = readdirSync(EXAMPLES).filter((f) => f.endsWith('.dmp'));

/** `copies` copies of each example dump (distinct names, so each is its own input). */
function exampleFolder(copies: number): string {
  const dir = makeTempDir('threads-in');
  for (let c = 0; c < copies; c++) {
    for (const name of examples) copyFileSync(join(EXAMPLES, name), join(dir, `${c}-${name}`));
  }
  return dir;
}

async function run(
  inputs: string,
  options: Partial<AnalyzeOptions> = {},
): Promise<{ out: string; events: AnalyzeEvent[]; records: AnalyzeDumpRecord[] }> {
  const out = makeTempDir('threads-out');
  const events: AnalyzeEvent[] = [];
  await analyzeDumps({
    inputs: [inputs],
    outDir: out,
    engine: 'builtin',
    env: { PATH: process.env['PATH'] ?? '' },
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { out, events, records: readNdjson(join(out, 'records.ndjson')) };
}

/** Records without their timings, in file order: what must not depend on threads. */
function comparable(records: readonly AnalyzeDumpRecord[]): string[] {
  return records
    .map(({ timings: _timings, ...rest }) => JSON.stringify(rest))
    .sort((a, b) => a.localeCompare(b));
}

const threadEvents = (events: readonly AnalyzeEvent[]) =>
  events.filter((e): e is Extract<AnalyzeEvent, { type: 'threads' }> => e.type === 'threads');

describe('analyze threads (builtin engine, worker_threads)', function () {
  this.timeout(120_000);

  after(() => analyzeThreadPool().close());

  it('writes the records and summary one thread writes, hostile and broken files included', async () => {
    const input = exampleFolder(2);
    await addCorruptInputs(input, join(EXAMPLES, 'av-write-a.dmp'));
    writeFileSync(join(input, 'many-modules.dmp'), manyModulesDump(200_000));
    const alone = await run(input, { threads: 0 });
    const threaded = await run(input, { threads: 1 });
    expect(threadEvents(alone.events)).to.deep.equal([
      { type: 'threads', threads: 0, reason: '--threads 0' },
    ]);
    expect(threadEvents(threaded.events)).to.deep.equal([
      { type: 'threads', threads: 1, reason: '--threads 1' },
    ]);
    const total = examples.length * 2 + 5;
    expect(threaded.records).to.have.length(total);
    expect(comparable(threaded.records)).to.deep.equal(comparable(alone.records));
    const failed = threaded.records.filter((r) => !r.ok).map((r) => r.file.split('/').pop());
    expect(failed.sort()).to.deep.equal([
      'empty.dmp',
      'many-modules.dmp',
      'notes.dmp',
      'random.dmp',
      'truncated.dmp',
    ]);
    const summary: Partial<AnalyzeSummary> = readSummary(threaded.out);
    const expected: Partial<AnalyzeSummary> = readSummary(alone.out);
    for (const s of [summary, expected]) {
      delete s.generatedAt; // when, not what
      delete s.options; // --threads itself
    }
    expect(summary).to.deep.equal(expected);
    // Progress: one dump event per input, counted up to the total, each with its own record.
    const dumps = threaded.events.filter(
      (e): e is Extract<AnalyzeEvent, { type: 'dump' }> => e.type === 'dump',
    );
    expect(dumps.map((e) => e.done)).to.deep.equal(Array.from({ length: total }, (_, i) => i + 1));
    for (const event of dumps) expect(event.record?.file).to.equal(event.file);
  });

  it('splits shards the same way and resumes a shard into the whole batch', async () => {
    const input = exampleFolder(3);
    const all = readdirSync(input).map((name) => join(input, name));
    const one = await run(input, { threads: 1, shard: { index: 1, count: 2 } });
    const two = await run(input, { threads: 1, shard: { index: 2, count: 2 } });
    const files = (records: readonly AnalyzeDumpRecord[]) => records.map((r) => r.file).sort();
    expect([...files(one.records), ...files(two.records)].sort()).to.deep.equal(all.sort());
    expect(files(one.records)).to.not.include.members(files(two.records).slice(0, 1));
    const skips = one.events.filter((e) => e.type === 'dump' && e.status === 'skipped-shard');
    expect(skips).to.have.length(two.records.length);
    // The first shard's folder, resumed without --shard: only the second shard's dumps are new.
    const events: AnalyzeEvent[] = [];
    const resumed = await analyzeDumps({
      inputs: [input],
      outDir: one.out,
      engine: 'builtin',
      env: { PATH: process.env['PATH'] ?? '' },
      threads: 1,
      resume: true,
      onEvent: (event) => events.push(event),
    });
    expect(resumed.skipped.resumed).to.equal(one.records.length);
    expect(resumed.analyzed).to.equal(two.records.length);
    expect(files(readNdjson(join(one.out, 'records.ndjson')))).to.deep.equal(all.sort());
  });

  it('stops on abort with whole records only, and --resume finishes without loss', async () => {
    const input = exampleFolder(8);
    const all = readdirSync(input).map((name) => join(input, name));
    const controller = new AbortController();
    const out = makeTempDir('threads-abort');
    let seen = 0;
    const result = await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'builtin',
      env: { PATH: process.env['PATH'] ?? '' },
      threads: 1,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'dump' && ++seen === 3) controller.abort();
      },
    });
    expect(result.interrupted).to.equal(true);
    const first = readNdjson(join(out, 'records.ndjson')); // throws on a torn line
    expect(first.length).to.be.at.least(3).and.below(all.length);
    expect(new Set(first.map((r) => r.file)).size).to.equal(first.length);
    expect(readSummary(out).interrupted).to.equal(true);
    await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'builtin',
      env: { PATH: process.env['PATH'] ?? '' },
      threads: 1,
      resume: true,
    });
    const files = readNdjson(join(out, 'records.ndjson')).map((r) => r.file);
    expect(files.sort()).to.deep.equal(all.sort());
  });

  it('hands a name that is not valid UTF-8 to its thread as bytes', async () => {
    const input = makeTempDir('threads-bytes');
    const name = Buffer.from('crash-\xff\xfe.dmp', 'latin1');
    copyFileSync(join(EXAMPLES, 'av-write-a.dmp'), Buffer.concat([Buffer.from(`${input}/`), name]));
    copyFileSync(join(EXAMPLES, 'av-write-b.dmp'), join(input, 'plain.dmp'));
    const { records } = await run(input, { threads: 1 });
    const odd = records.find((r) => r.fileBytes !== undefined);
    expect(odd).to.include({ ok: true });
    expect(Buffer.from(odd?.fileBytes ?? '', 'base64').subarray(-name.length)).to.deep.equal(name);
    expect(records.filter((r) => r.ok)).to.have.length(2);
  });

  it('quarantines a dump its thread dies on, alone, twice, and blames no other', async () => {
    // A 1 ms deadline stops every thread in its first dump (a thread past the deadline is ended,
    // as one that crashed or ran out of heap is): the dumps held at once are each run again
    // alone, and each is quarantined only when its own thread ended twice with it alone.
    // Threads are let go first: a fresh thread's first dump (nothing compiled yet) takes far more
    // than 1 ms, where a warm one kept from another test could beat the deadline.
    await analyzeThreadPool().close();
    const input = makeTempDir('threads-die');
    for (const name of examples.slice(0, 2)) copyFileSync(join(EXAMPLES, name), join(input, name));
    const { records, out } = await run(input, { threads: 1, timeoutMs: 1 });
    expect(records.map((r) => r.file.split('/').pop()).sort()).to.deep.equal(
      examples.slice(0, 2).sort(),
    );
    for (const record of records) {
      expect(record).to.include({ ok: false, quarantined: true, attempts: 2 });
      expect(record.error?.code).to.equal('TIMEOUT');
      expect(record.error?.message).to.match(/^quarantined: the analyze thread ended 2 times/);
      expect(record.sha256).to.match(/^[0-9a-f]{64}$/);
    }
    expect(readSummary(out).quarantined).to.have.length(2);
  });

  it('goes on in one thread when threads cannot start', async () => {
    const input = makeTempDir('threads-nostart');
    for (const name of examples.slice(0, 4)) copyFileSync(join(EXAMPLES, name), join(input, name));
    // A heap far too small to load the processor's modules: every thread dies before its first dump.
    const { records, events } = await run(input, {
      threads: 1,
      threadResourceLimits: { maxOldGenerationSizeMb: 2, maxYoungGenerationSizeMb: 1 },
    });
    expect(records).to.have.length(4);
    expect(records.every((r) => r.ok)).to.equal(true);
    const said = threadEvents(events);
    expect(said).to.have.length(2);
    expect(said[1]).to.include({ threads: 0 });
    expect(said[1]?.reason).to.match(/stopped before their first dump 3 times/);
  });
});
