import { expect } from 'chai';
import { main } from '../../src/cli/main.js';
import { parseText } from '../../src/parsers/parse-text.js';
import { lookupCommand } from '../../src/parsers/registry.js';
import { splitLog } from '../../src/parsers/split-log.js';
import { validate } from '../../src/report/schemas.js';
import {
  listTranscripts,
  transcript,
  winedbgFixture,
  WINEDBG_FIXTURES_DIR,
} from './transcripts.js';
import { join } from 'node:path';
import { TRANSCRIPTS_DIR } from './transcripts.js';

describe('split-log and registry', () => {
  it('splits at every prompt shape: 0:000>, 1:014:x86>, 1:0:011>, 0: kd>, Wine-dbg>', () => {
    const text = [
      '0:000> k',
      'a',
      '1:014:x86> kb',
      'b',
      '1:0:011> lm',
      '0: kd> q',
      'Wine-dbg>bt',
    ].join('\n');
    expect(splitLog(text).sections.map((s) => [s.prompt, s.command])).to.deep.equal([
      ['0:000>', 'k'],
      ['1:014:x86>', 'kb'],
      ['1:0:011>', 'lm'],
      ['0: kd>', 'q'],
      ['Wine-dbg>', 'bt'],
    ]);
  });

  it('treats "> cmd" as a prompt only where no cdb prompt exists (dotnet-dump)', () => {
    const dotnet = transcript('clrstack/dotnet-dump-setthread-clrstack-two-threads-linux.txt');
    expect(splitLog(dotnet.body).sections.map((s) => s.command)).to.deep.equal([
      'setthread 0x1dc1d',
      'clrstack',
      'setthread 0x1dc1e',
      'clrstack',
    ]);
    const analyze = transcript('analyze/fuzzmanager-win7-x86-av-minidump-6.12.txt');
    expect(splitLog(analyze.body).sections).to.have.length(1); // `> 1242:` is source, not a prompt
  });

  it('reads "cdb: Reading initial command" as the -c commands', () => {
    const t = transcript('events/clusterfuzz-integer-overflow-c0000095-x64.txt');
    const [section] = splitLog(t.body).sections;
    expect(section).to.include({ initialCommand: true });
    expect(section?.command).to.equal('sxd wos; sxd wob; !analyze -v; k; r; ub; q');
  });

  it('maps commands to kinds case-insensitively', () => {
    const kinds: [string, string | undefined][] = [
      ['!heap -s', 'heapSummary'],
      ['!heap -s -h 0', 'heapSummary'],
      ['!heap -stat -h 00310000', 'heapStat'],
      ['!PrintException', 'printException'],
      ['pe -lines', 'printException'],
      ['!CLRStack', 'clrStack'],
      ['~* kv', 'stack'],
      ['~#kn 50', 'stack'],
      ['kL', 'stack'],
      ['bt', 'stack'],
      ['lmvm mscorwks', 'modules'],
      ['info share', 'modules'],
      ['.LASTEVENT', 'lastEvent'],
      ['.exr -1', 'exceptionRecord'],
      ['!analyze -v', 'analyze'],
      ['.dump /ma c:\\x.dmp', 'dumpWritten'],
      ['minidump /tmp/x.dmp', 'dumpWritten'],
      ['.loadby sos clr', 'extensionLoad'],
      ['!dumpheap -stat', 'dumpHeapStat'],
      ['!eeheap -gc', 'eeHeapGc'],
      ['!address -summary', 'addressSummary'],
      ['qd', 'sessionEnd'],
      ['kill', undefined],
      ['.ecxr', undefined],
    ];
    for (const [command, kind] of kinds) {
      expect(lookupCommand(command)?.kind, command).to.equal(kind);
    }
  });
});

describe('parseText', () => {
  it('gives the startup banner, the commands, and the events of a whole session', () => {
    const envelope = parseText(
      transcript('startup/fuzzmanager-full-session-win10-x64-av.txt').body,
    );
    expect(validate('parseEnvelope', envelope).errors).to.deep.equal([]);
    expect(envelope.entries[0]?.kind).to.equal('startup');
    const kinds = envelope.entries.map((e) => `${e.command ?? ''}=${e.kind}`);
    expect(kinds).to.include.members([
      '!analyze -v=analyze',
      '~#kn 50=stack',
      'kb 50=stack',
      'q=sessionEnd',
    ]);
    expect(envelope.events.map((e) => e.code)).to.deep.equal(['0xc0000005']);
  });

  it('does not count the event line that winedbg info exception repeats', () => {
    const envelope = parseText(winedbgFixture('attach-raise-first-chance-cxx-gcc-div0.txt').body);
    expect(envelope.events.map((e) => e.code)).to.deep.equal([
      '0xe06d7363',
      '0x20474343',
      '0xc0000094',
    ]);
  });

  it('keeps unknown command output raw', () => {
    const envelope = parseText('0:000> .chain\nExtension DLL chain:');
    expect(envelope.entries[0]).to.deep.include({ kind: 'unknown', command: '.chain' });
  });

  it('runs on every transcript without throwing, and every envelope validates', () => {
    for (const t of listTranscripts()) {
      const envelope = parseText(t.body, { command: t.command });
      expect(validate('parseEnvelope', envelope).errors, t.name).to.deep.equal([]);
    }
  });
});

describe('cdb-harness parse (CLI)', () => {
  let out = '';
  let err = '';
  const realOut = process.stdout.write.bind(process.stdout);
  const realErr = process.stderr.write.bind(process.stderr);
  beforeEach(() => {
    out = '';
    err = '';
    process.stdout.write = (chunk: string) => ((out += chunk), true);
    process.stderr.write = (chunk: string) => ((err += chunk), true);
  });
  afterEach(() => {
    process.stdout.write = realOut;
    process.stderr.write = realErr;
  });

  it('prints the envelope of a transcript file, header skipped', async () => {
    const file = join(TRANSCRIPTS_DIR, 'misc', 'kc-x64-call-site-only.txt');
    const code = await main(['node', 'cdb-harness', 'parse', file]);
    expect(code).to.equal(0);
    const envelope = JSON.parse(out) as { entries: { kind: string }[] };
    expect(envelope.entries[0]?.kind).to.equal('stack');
  });

  it('--text summarises exception code, chance and CLR type', async () => {
    const file = join(
      TRANSCRIPTS_DIR,
      'events',
      'clr-e0434352-first-and-second-chance-net8-x64.txt',
    );
    expect(await main(['node', 'cdb-harness', 'parse', file, '--text'])).to.equal(0);
    expect(out).to.include('0xe0434352 CLR exception (second chance) System.AggregateException');
  });

  it('parses a winedbg capture with --dialect winedbg', async () => {
    const file = join(WINEDBG_FIXTURES_DIR, 'av-unhandled-bt-info-share-minidump.txt');
    expect(
      await main(['node', 'cdb-harness', 'parse', file, '--dialect', 'winedbg', '--text']),
    ).to.equal(0);
    expect(out).to.include('info share -> modules');
  });

  it('exits 1 (cannot be read, as its --help says) with a clear message for a missing file', async () => {
    expect(await main(['node', 'cdb-harness', 'parse', '/no/such/file.txt'])).to.equal(1);
    expect(err).to.include('no such file: /no/such/file.txt');
  });

  it('exits 2 for a bad --dialect', async () => {
    const file = join(TRANSCRIPTS_DIR, 'misc', 'kc-x64-call-site-only.txt');
    expect(await main(['node', 'cdb-harness', 'parse', file, '--dialect', 'gdb'])).to.equal(2);
  });
});
