// Real SOS output recorded from our own CLR test program (test/targets/dotnet) with dotnet-dump on
// Linux (scripts/record-dotnet-dump.sh; each file's header says tool, version, command and date).
// Every file goes through parseText like the published transcripts (schema + golden under
// test/golden/dotnet-dump/), and the records are checked against what the program itself printed
// when it ran: its exception types, messages and HRESULTs, its frames, its leak.
// Regenerate goldens after a deliberate change: UPDATE_GOLDEN=1 npx mocha test/parsers/dotnet-dump-fixtures.test.ts
import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseText } from '../../src/parsers/parse-text.js';
import type {
  ClrStackRecord,
  DumpHeapStatRecord,
  EeHeapGcRecord,
  PrintExceptionRecord,
} from '../../src/parsers/records.js';
import { validate } from '../../src/report/schemas.js';
import { readTranscriptFile, REPO_ROOT, type Transcript } from './transcripts.js';

const DIR = join(REPO_ROOT, 'test', 'fixtures', 'transcripts', 'dotnet-dump');
const GOLDEN_DIR = join(REPO_ROOT, 'test', 'golden', 'dotnet-dump');
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';

function fixture(file: string): Transcript {
  return readTranscriptFile(join(DIR, file), `dotnet-dump/${file}`);
}

function only<T>(file: string, kind: string): T {
  const t = fixture(file);
  const envelope = parseText(t.body, { command: t.command });
  expect(envelope.entries.map((e) => e.kind)).to.deep.equal([kind]);
  return envelope.entries[0]?.record as T;
}

describe('dotnet-dump fixtures (real SOS text from our CLR program)', () => {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.txt'))
    .sort();

  it('has the recorded set, each with a header naming tool, version, command and date', () => {
    expect(files.length).to.be.at.least(10);
    for (const file of files) {
      const head = readFileSync(join(DIR, file), 'utf8').split('\n').slice(0, 5);
      // By the script, or by hand with its commands (the header then says which).
      expect(head[0], file).to.match(
        /^# source: recorded (?:by scripts\/record-dotnet-dump\.sh|for this project) on \d{4}-\d{2}-\d{2}/,
      );
      expect(head[1], file).to.match(/^# tool: dotnet-dump \d+\.\d+\.\d+ analyze/);
      expect(head[2], file).to.match(/^# command: \S/);
      expect(head[4], file).to.equal('# ---');
    }
  });

  describe('golden', () => {
    for (const file of files) {
      it(file, () => {
        const t = fixture(file);
        const envelope = parseText(t.body, { command: t.command });
        expect(validate('parseEnvelope', envelope).errors, 'schema errors').to.deep.equal([]);
        const golden = join(GOLDEN_DIR, file.replace(/\.txt$/, '.json'));
        const actual = `${JSON.stringify(envelope, null, 2)}\n`;
        if (UPDATE || !existsSync(golden)) {
          mkdirSync(dirname(golden), { recursive: true });
          writeFileSync(golden, actual);
          if (!UPDATE) expect.fail(`golden ${golden} was missing and has been written; check it`);
          return;
        }
        expect(JSON.parse(actual)).to.deep.equal(JSON.parse(readFileSync(golden, 'utf8')));
      });
    }
  });

  it('pe: the exception the program was handling, its inner exception by address, HRESULT', () => {
    const record = only<PrintExceptionRecord>(
      'pe-current-widget-inner-format-linux-net10.txt',
      'printException',
    );
    expect(record.warnings).to.deep.equal([]);
    expect(record.exceptions).to.have.length(1);
    const e = record.exceptions[0];
    expect(e).to.include({
      type: 'CdbHarness.Targets.WidgetException',
      message: 'cdbh: widget failed',
      hresult: '0x80131500',
      stackTraceString: null,
    });
    // `Use printexception ADDR` (dotnet-dump) as well as cdb's `Use !PrintException ADDR`.
    expect(e?.innerException).to.deep.equal({
      type: 'System.FormatException',
      address: '0x7f4be180db10',
    });
    expect(e?.stack.map((f) => f.function)).to.deep.equal([
      'cdbh-dotnet.dll!CdbHarness.Targets.Program.ThrowWithInner()+0x92',
      'cdbh-dotnet.dll!CdbHarness.Targets.Program.Hold(Int32)+0x144',
    ]);
  });

  it('pe -nested: the outer, its inner and the enclosing catch, with the program’s HRESULTs', () => {
    const record = only<PrintExceptionRecord>(
      'pe-nested-widget-within-invalidop-linux-net10.txt',
      'printException',
    );
    expect(record.warnings).to.deep.equal([]);
    // The program printed: WidgetException 0x80131500, inner FormatException 0x80131537, and the
    // InvalidOperationException 0x80131509 whose catch block it was in.
    expect(record.exceptions.map((e) => [e.type, e.hresult])).to.deep.equal([
      ['CdbHarness.Targets.WidgetException', '0x80131500'],
      ['System.FormatException', '0x80131537'],
      ['System.InvalidOperationException', '0x80131509'],
    ]);
    expect(record.exceptions[1]?.message).to.equal(
      "The input string 'not a number' was not in a correct format.",
    );
  });

  it('pe with no exception on the thread says so', () => {
    const record = only<PrintExceptionRecord>(
      'pe-no-current-exception-linux-net10.txt',
      'printException',
    );
    expect(record.noException).to.equal(true);
    expect(record.exceptions).to.deep.equal([]);
  });

  it('clrstack: the managed frames of the parked thread, exception frames typed', () => {
    const record = only<ClrStackRecord>(
      'clrstack-hold-in-nested-catch-linux-net10.txt',
      'clrStack',
    );
    expect(record.threads).to.have.length(1);
    const frames = record.threads[0]?.frames ?? [];
    const managed = frames.filter((f) => f.frameType === undefined).map((f) => f.callSite);
    expect(managed[0]).to.equal('System.Threading.Thread.Sleep(Int32)');
    expect(managed.at(-1)).to.equal('CdbHarness.Targets.Program.Main(System.String[])');
    expect(managed).to.include('CdbHarness.Targets.Program.ThrowInvalidOperation()');
    expect(frames.filter((f) => f.frameType === 'SoftwareExceptionFrame')).to.have.length(3);
    expect(record.threads[0]?.osThreadId).to.equal('0x4518');
  });

  it('clrstack -a: parameters and locals (Hold’s ms is the 120000 the script passed)', () => {
    const record = only<ClrStackRecord>(
      'clrstack-a-hold-in-nested-catch-linux-net10.txt',
      'clrStack',
    );
    const hold = record.threads[0]?.frames.find((f) =>
      f.callSite.startsWith('CdbHarness.Targets.Program.Hold'),
    );
    const ms = hold?.parameters?.[0];
    expect(ms?.name).to.equal('ms');
    expect(Number.parseInt(ms?.value ?? '', 16)).to.equal(120_000);
  });

  it('dumpheap -stat: thousands separators, the byte total, the leaked byte[]', () => {
    const record = only<DumpHeapStatRecord>(
      'dumpheap-stat-leak-byte-arrays-linux-net10.txt',
      'dumpHeapStat',
    );
    expect(record.warnings).to.deep.equal([]);
    expect(record.totalObjects).to.equal(476);
    expect(record.totalSize).to.equal(10_558_234);
    const bytes = record.types.find((t) => t.className === 'System.Byte[]');
    // 40 ticks of 256 KB arrays, kept alive by the program's static list.
    expect(bytes?.count).to.be.at.least(40);
    expect(bytes?.totalSize).to.be.at.least(40 * 256 * 1024);
    expect(record.types.at(-1)?.className).to.equal('System.Byte[]');
  });

  it('eeheap -gc (regions): areas, generations, sizes and totals without warnings', () => {
    const record = only<EeHeapGcRecord>('eeheap-gc-leak-linux-net10.txt', 'eeHeapGc');
    expect(record.warnings).to.deep.equal([]);
    expect(record.heapCount).to.equal(1);
    const segments = record.heaps[0]?.segments ?? [];
    expect(segments.map((s) => [s.area, s.generation ?? null])).to.deep.equal([
      ['soh', 0],
      ['soh', 1],
      ['soh', 2],
      ['nongc', null],
      ['loh', null],
      ['poh', null],
    ]);
    // The empty gen 2 region prints only its committed size.
    expect(segments[2]).to.include({ allocatedSize: 0, committedSize: 4096 });
    // The leak's 256 KB arrays live on the large object heap.
    expect(segments[4]?.allocatedSize).to.equal(10_488_000);
    expect(record.totalSize).to.equal(10_569_504);
    expect(record.totalCommitted).to.equal(10_768_384);
  });
});
