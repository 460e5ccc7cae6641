// Search across analyze runs (issue 34): records found by a frame that is not in their signature,
// by module, by exception code and by bucket, across two output folders, streamed; a torn line
// is counted, never fatal. The records are the real ones of examples/dumps (builtin engine).
import { expect } from 'chai';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../../src/errors.js';
import { analyzeDumps } from '../../../src/workflows/analyze/analyze.js';
import {
  queryRecords,
  recordFiles,
  type QueryCriteria,
  type QueryStats,
} from '../../../src/workflows/query/query.js';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT } from '../../helpers/wine.js';

const EXAMPLES = join(REPO_ROOT, 'examples', 'dumps');

describe('query: records of analyze runs by frame, module, code and bucket', function () {
  this.timeout(120_000);
  let one = '';
  let two = '';

  before(async () => {
    const root = makeTempDir('query');
    one = join(root, 'one');
    two = join(root, 'two');
    await analyzeDumps({
      inputs: [join(EXAMPLES, 'av-write-a.dmp')],
      outDir: one,
      engine: 'builtin',
    });
    await analyzeDumps({ inputs: [EXAMPLES], outDir: two, engine: 'builtin', threads: 0 });
    // A run cut short leaves a torn last line.
    appendFileSync(join(two, 'records.ndjson'), '{"file": "/x.dmp", "sha2');
  });

  async function found(criteria: QueryCriteria) {
    const stats: QueryStats = { files: 0, lines: 0, parsed: 0, matched: 0, badLines: 0 };
    const files: string[] = [];
    for await (const match of queryRecords(recordFiles([one, two]), criteria, stats)) {
      files.push(
        `${match.source.includes('/one/') ? 'one' : 'two'}:${match.record.file.split('/').pop()}`,
      );
    }
    return { files, stats };
  }

  it('finds a dump by a frame its signature left out (a scanned caller)', async () => {
    // av-write's bucket is `0xc0000005 write | av+0x154a`; av+0x16bc is a scanned caller.
    const { files, stats } = await found({ frame: 'AV+0x16BC' });
    expect(files).to.deep.equal(['one:av-write-a.dmp', 'two:av-write-a.dmp', 'two:av-write-b.dmp']);
    // The torn line holds no `16bc`: never parsed, so not counted.
    expect(stats).to.include({ lines: 8, badLines: 0 });
    // With no criterion every line is parsed: the torn one is counted, never fatal.
    const all = await found({});
    expect(all.files).to.have.length(7);
    expect(all.stats.badLines).to.equal(1);
  });

  it('finds by module, by exception code and by bucket, every criterion together', async () => {
    expect((await found({ module: 'THROWER.exe' })).files).to.deep.equal(['two:cpp-throw.dmp']);
    expect((await found({ code: 'E0434352' })).files).to.deep.equal(['two:clr-raise.dmp']);
    const av = await found({ code: '0xc0000005', module: 'av' });
    expect(av.files).to.have.length(3);
    const bucket = (await found({ frame: 'av+0x154a' })).files.length;
    expect(bucket).to.equal(3);
    expect((await found({ bucket: '0xc0000005 write | av+0x154a' })).files).to.have.length(3);
    expect((await found({ code: '0xc0000005', module: 'thrower' })).files).to.deep.equal([]);
  });

  it('parses only the lines whose text can match', async () => {
    const { stats } = await found({ module: 'thrower' });
    expect(stats.parsed).to.equal(1);
  });

  it('reads lines across reads, longer than a read, and names that are not ASCII', async () => {
    // Lines of 100 KB to 1.5 MB (the reader reads 1 MiB and searches 64 KiB at a time) around a
    // record whose file name is not ASCII: every line counted, each match's name intact.
    const [line] = readFileSync(join(one, 'records.ndjson'), 'utf8').split('\n');
    const record = JSON.parse(line!) as Record<string, unknown>;
    const big = join(makeTempDir('query-long'), 'records.ndjson');
    const lines = [100_000, 1_500_000, 3_000, 700_000].map((pad, i) =>
      JSON.stringify({ ...record, file: `C:\\dümps\\${i}-ä.dmp`, warnings: ['x'.repeat(pad)] }),
    );
    writeFileSync(big, `${lines.join('\n')}\n`);
    const stats: QueryStats = { files: 0, lines: 0, parsed: 0, matched: 0, badLines: 0 };
    const names: string[] = [];
    for await (const match of queryRecords([big], { frame: 'av+0x16bc' }, stats)) {
      names.push(match.record.file);
    }
    expect(names).to.deep.equal([0, 1, 2, 3].map((i) => `C:\\dümps\\${i}-ä.dmp`));
    expect(stats).to.include({ lines: 4, matched: 4, badLines: 0 });
    const byName = queryRecords([big], { frame: 'av+0x16bc', bucket: 'av+0x154a' });
    const first = await byName.next();
    await byName.return(undefined);
    expect(first.done === true ? undefined : first.value.record.file).to.equal(
      'C:\\dümps\\0-ä.dmp',
    );
  });

  it('says what is wrong with a folder that holds no records or a code that is none', async () => {
    const empty = makeTempDir('query-empty');
    mkdirSync(join(empty, 'x'));
    expect(() => recordFiles([join(empty, 'x')])).to.throw(UsageError, /no records\.ndjson/);
    const none = queryRecords(recordFiles([one]), { code: 'boom' });
    let error: unknown;
    try {
      await none.next();
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(UsageError);
  });

  it('prints text or JSON lines from the command line, and exits 1 on no match', async () => {
    const text = await runCli(['query', one, two, '--frame', 'av+0x16bc']);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout.trim().split('\n')).to.have.length(3);
    expect(text.stdout).to.match(
      /^[0-9a-f]{16} {2}0xc0000005 {2}\S+av-write-a\.dmp {2}0xc0000005 write \| av\+0x154a {2}\[av\+0x16bc\]$/m,
    );
    expect(text.stderr).to.match(/^3 of 8 records matched in 2 file\(s\)$/m);
    const json = await runCli(['query', two, '--code', 'c0000005', '--json', '--limit', '1']);
    const lines = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { code: string });
    expect(lines).to.have.length(1);
    expect(lines[0]?.code).to.equal('0xc0000005');
    const nothing = await runCli(['query', two, '--frame', 'no_such_function']);
    expect(nothing.code).to.equal(1);
  });
});
