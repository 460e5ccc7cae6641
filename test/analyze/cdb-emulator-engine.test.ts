// The cdb path of `analyze`, through the cdb emulator over a real pty: cdb -z, the default triage
// script answered from real transcripts, a hang killed at the per-dump timeout, and a dump that
// crashes the debugger twice quarantined, all in one batch that carries on.
import { expect } from 'chai';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeDumps, type AnalyzeEvent } from '../../src/workflows/analyze/analyze.js';
import { validate } from '../../src/report/schemas.js';
import { TRANSCRIPTS_DIR } from '../helpers/transcripts-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';
import { byName, dumpOf, folderWith, readNdjson, readSummary, tempDir } from './fixtures.js';

const SCENARIOS = join(REPO_ROOT, 'test', 'emulator', 'scenarios');
const EMULATOR = {
  file: process.execPath,
  args: ['--import', 'tsx', join(REPO_ROOT, 'test', 'analyze', 'emulator-per-dump.ts')],
};

describe('analyze --engine cdb (cdb emulator)', function () {
  this.timeout(120_000);
  let input: string;
  let out: string;
  let transcripts: string;
  const events: AnalyzeEvent[] = [];

  before(async function () {
    if (!existsSync(join(REPO_ROOT, 'test', 'emulator', 'cdb-emulator.ts'))) this.skip();
    input = await folderWith({
      'triage.dmp': await dumpOf('av-write', 1),
      'hang.dmp': await dumpOf('av-write', 2),
      'crash.dmp': await dumpOf('clr-raise'),
    });
    for (const [dump, scenario] of [
      ['triage.dmp', 'analyze-av.json'],
      ['hang.dmp', 'analyze-hang.json'],
      ['crash.dmp', 'analyze-crash.json'],
    ] as const) {
      writeFileSync(join(input, `${dump}.scenario`), join(SCENARIOS, scenario));
    }
    out = tempDir('cdb');
    transcripts = tempDir('cdb-record');
    await analyzeDumps({
      inputs: [input],
      outDir: out,
      engine: 'cdb',
      jobs: 2,
      timeoutMs: 8_000,
      debuggerPath: 'cdb.exe',
      debuggerCommandPrefix: EMULATOR,
      validateRecords: true,
      recordDir: transcripts,
      onEvent: (e) => events.push(e),
    });
  });

  it('runs the default triage script and fills the record from the real replies', () => {
    const records = readNdjson(join(out, 'records.ndjson'));
    const triage = byName(records, 'triage.dmp');
    expect(triage.ok, JSON.stringify(triage.error)).to.equal(true);
    expect(triage.engine).to.equal('cdb');
    expect(triage.timings.commands.map((c) => c.command)).to.deep.equal([
      '.lastevent',
      '.exr -1',
      '.ecxr',
      '~#kn 50',
      '!analyze -v',
    ]);
    // The dump's own exception stream wins over the unrelated .lastevent transcript.
    expect(triage.exception?.code).to.equal('0xc0000005');
    // Frames and !analyze keys come from the FuzzManager transcript the emulator replayed.
    const transcript = readFileSync(
      join(TRANSCRIPTS_DIR, 'startup', 'fuzzmanager-full-session-win10-x64-av.txt'),
      'utf8',
    );
    const first = triage.frames[0];
    expect(first?.module).to.be.a('string');
    expect(transcript).to.include(`${first?.module}!${first?.function}`);
    expect(triage.analyze?.failureBucketId).to.be.a('string');
    expect(transcript).to.include(triage.analyze?.failureBucketId ?? '<none>');
    expect(triage.bucket?.signature).to.include(`${first?.module?.toLowerCase()}!`);
    expect(triage.rawOutputs).to.have.length(5);
    for (const raw of triage.rawOutputs) expect(existsSync(join(out, raw.path))).to.equal(true);
    expect(validate('analyzeRecord', triage).errors).to.deep.equal([]);
    // --record: the engine's transcript of the session, named by the dump's hash.
    expect(existsSync(join(transcripts, `${triage.sha256.slice(0, 12)}.jsonl`))).to.equal(true);
  });

  it('kills a hung debugger at the per-dump timeout and records its last output lines', () => {
    const hang = byName(readNdjson(join(out, 'records.ndjson')), 'hang.dmp');
    expect(hang.ok).to.equal(false);
    expect(hang.error?.code).to.equal('TIMEOUT');
    expect(hang.error?.command).to.equal('!analyze -v');
    expect(hang.quarantined).to.equal(undefined);
    // What the dump alone says is kept even though the debugger failed.
    expect(hang.exception?.code).to.equal('0xc0000005');
  });

  it('retries a dump that crashes the debugger, then quarantines it', () => {
    const crash = byName(readNdjson(join(out, 'records.ndjson')), 'crash.dmp');
    expect(crash).to.include({ ok: false, quarantined: true, attempts: 2 });
    expect(crash.error?.code).to.equal('DEBUGGER_EXITED');
    expect(events.filter((e) => e.type === 'retry')).to.have.length(1);
    const summary = readSummary(out);
    expect(summary.quarantined.map((q) => q.file.split('/').pop())).to.deep.equal(['crash.dmp']);
    expect(summary).to.include({ dumps: 3, ok: 1, failed: 2 });
  });

  it('fills clrException and heapSummary from SOS and !heap -s, and buckets by managed type', async () => {
    const dir = await folderWith({ 'managed.dmp': await dumpOf('clr-raise') });
    writeFileSync(join(dir, 'managed.dmp.scenario'), join(SCENARIOS, 'analyze-clr-full.json'));
    // Wine cannot make a dump with clr.dll in it, so the `?clr`/`?full` guards of the default
    // script would skip these steps: a script without guards runs them.
    const script = join(dir, 'managed.txt');
    writeFileSync(script, '$$ managed triage\n.loadby sos clr\n!pe\n!clrstack\n!heap -s\n');
    const managedOut = tempDir('cdb-clr');
    await analyzeDumps({
      inputs: [dir],
      outDir: managedOut,
      engine: 'cdb',
      scriptPath: script,
      timeoutMs: 8_000,
      debuggerPath: 'cdb.exe',
      debuggerCommandPrefix: EMULATOR,
    });
    const [record] = readNdjson(join(managedOut, 'records.ndjson'));
    expect(record?.ok, JSON.stringify(record?.error)).to.equal(true);
    const managed = record?.clrException?.exceptions[0];
    expect(managed?.type).to.equal('System.Exception');
    expect(managed?.message).to.equal('crashing my application');
    expect(record?.heapSummary?.heaps.length).to.be.greaterThan(0);
    expect(record?.notAvailable).to.not.include.members(['clrException', 'heapSummary']);
    expect(record?.bucket?.signature).to.equal(
      'clr:System.Exception | CrashingApplication!CrashingApplication.Program.Main(System.String[])',
    );
    expect(validate('analyzeRecord', record).errors).to.deep.equal([]);
  });
});
