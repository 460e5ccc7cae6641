// `parse` of output saved WITHOUT its prompt line and given without --command: the kind comes
// from the content. Every input is a real transcript (test/fixtures/transcripts/, sources in
// their headers) with its header and prompt lines removed, as a user who redirected the output to
// a file would have it.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripTranscriptHeader } from '../../src/cli/commands/parse.js';
import { parseText } from '../../src/parsers/parse-text.js';
import { sniffCommand } from '../../src/parsers/sniff-kind.js';
import { TRANSCRIPTS_DIR } from '../helpers/transcripts-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';

// What each transcript is, by the command in its header (the kind its prompt line gives).
const EXPECTED: Record<string, string> = {
  'analyze/docs-using-analyze-usermode-80000003-x86.txt': 'analyze',
  'analyze/dumpanalysis-clr-e0434f4d-mmc-x86-partial-altered.txt': 'analyze',
  'analyze/fuzzmanager-win7-x86-breakpoint-6.12.txt': 'analyze',
  'clrstack/eddynaka-netcore31-x64-child-sp-ip.txt': 'clrStack',
  'heap-s/hueifeng-win10-x64-nt-external-fragmentation.txt': 'heapSummary',
  'heap-s/win10-x64-nt-stats-no-heaps-to-display.txt': 'heapSummary',
  'heap-stat/keenjin-win10-x86-heap-stat-h.txt': 'heapStat',
  'misc/dumpheap-stat-netfx48-x86-no-total.txt': 'dumpHeapStat',
  'misc/eeheap-gc-server-12heaps-net6-x64.txt': 'eeHeapGc',
  'misc/exr-cpp-eh-e06d7363-x86-with-types.txt': 'exceptionRecord',
  'misc/k-x64-notepad-no-header.txt': 'stack',
  'misc/kb50-x86-fuzzmanager-win7.txt': 'stack',
  'misc/kc-x64-call-site-only.txt': 'stack',
  'misc/tilde-hash-kn50-x64-fuzzmanager-win10.txt': 'stack',
  'misc/lastevent-c00000fd-second-chance.txt': 'lastEvent',
  'misc/lmvm-mscorwks-x64-debugger-on-wow64-dump.txt': 'modules',
  'misc/docs-address-summary-usage-excerpt.txt': 'addressSummary',
  'pe/eddynaka-netfx48-x86-simple.txt': 'printException',
  'pe/net4-no-current-managed-exception.txt': 'printException',
  'umdh/lowleveldesign-umdh-diff-with-total-increase-overhead.txt': 'umdhDiff',
  'umdh/onecode-umdh-diff-plus-and-minus.txt': 'umdhDiff',
  // The docs quote one entry of the comparison in the shape a snapshot LOG prints it
  // (`00005320 bytes in 0x14 allocations (@ 0x00000428) by: BackTrace00B53`), and nothing else.
  'umdh/docs-diff-backtrace-block.txt': 'umdhLog',
};

// 0:000> k     0:000:x86> !heap -s     Wine-dbg>bt     > clrstack
const PROMPT_RE = /^\s*(?:\d+:\d+(?::\w+)?>|Wine-dbg>|> )/;

function withoutPrompts(file: string): string {
  const { body } = stripTranscriptHeader(readFileSync(join(TRANSCRIPTS_DIR, file), 'utf8'));
  return body
    .split('\n')
    .filter((line) => !PROMPT_RE.test(line))
    .join('\n');
}

describe('parse: the kind recognised from the content (no prompt, no --command)', () => {
  it('covers every kind it recognises, each with a real transcript', () => {
    const kinds = new Set(Object.values(EXPECTED));
    for (const kind of [
      'analyze',
      'umdhDiff',
      'umdhLog',
      'printException',
      'clrStack',
      'dumpHeapStat',
      'eeHeapGc',
      'addressSummary',
      'heapSummary',
      'heapStat',
      'exceptionRecord',
      'lastEvent',
      'modules',
      'stack',
    ]) {
      expect(kinds.has(kind), kind).to.equal(true);
    }
  });

  for (const [file, kind] of Object.entries(EXPECTED)) {
    it(`${file} -> ${kind}`, () => {
      const text = withoutPrompts(file);
      const envelope = parseText(text);
      expect(envelope.entries).to.have.length(1);
      const [entry] = envelope.entries;
      expect(entry?.kind).to.equal(kind);
      expect(entry?.command).to.equal(null);
      expect(entry?.warnings.join('\n')).to.match(/recognised from the content/);
    });
  }

  it('reads winedbg bt output saved without its prompt', () => {
    const capture = readFileSync(
      join(
        REPO_ROOT,
        'test',
        'parsers',
        'fixtures',
        'winedbg',
        'av-unhandled-bt-info-share-minidump.txt',
      ),
      'utf8',
    );
    const lines = capture.split(/\r*\n/);
    const start = lines.findIndex((l) => l.startsWith('Backtrace:'));
    const end = lines.findIndex((l, i) => i > start && l.startsWith('Wine-dbg>'));
    const entry = parseText(lines.slice(start, end).join('\n')).entries[0];
    expect(entry?.kind).to.equal('stack');
    if (entry?.kind === 'stack') {
      expect(entry.record.threads[0]?.frames[0]?.callSite).to.match(/crash_here/);
    }
  });

  it('leaves text it cannot place as unknown, and an explicit --command always wins', () => {
    expect(sniffCommand('hello\nthis is a note about a crash, not debugger output\n')).to.equal(
      null,
    );
    expect(parseText('hello\nnot debugger output\n').entries[0]?.kind).to.equal('unknown');
    const heap = withoutPrompts('heap-s/hueifeng-win10-x64-nt-external-fragmentation.txt');
    const given = parseText(heap, { command: 'lm' }).entries[0];
    expect(given?.command).to.equal('lm');
    expect(given?.kind).to.equal('modules');
  });
});
