import { expect } from 'chai';
import { feedLines } from '../../src/parsers/line-parser.js';
import type { UmdhDiffEntry, UmdhDiffRecord } from '../../src/parsers/records.js';
import { createUmdhDiffParser, parseUmdhDiff } from '../../src/parsers/umdh.js';
import { parseText } from '../../src/parsers/parse-text.js';
import { assertValid } from '../../src/report/schemas.js';
import {
  transcriptBody,
  transcriptLines,
  untestedTranscripts,
} from './heap-sos-umdh-transcripts.js';

function parse(file: string): UmdhDiffRecord {
  const record = parseUmdhDiff(transcriptBody(file));
  assertValid('umdhDiff', record);
  return record;
}

describe('parseUmdhDiff (umdh log1 log2 comparison reports)', () => {
  it('reads a growth entry and a freed entry, all numbers hex, TAB-indented frames', () => {
    const record = parse('umdh/onecode-umdh-diff-plus-and-minus.txt');
    expect(record.entryCount).to.equal(2);
    const [grown, freed] = record.entries;
    // `+ 2a98c90 ( 2a98c90 -     0)  15cf4 allocs	BackTrace74050`
    expect(grown).to.deep.include({
      backtrace: 'BackTrace74050',
      bytesDelta: 0x2a98c90,
      newBytes: 0x2a98c90,
      oldBytes: 0,
      allocsDelta: 0x15cf4,
      newAllocs: 0x15cf4,
      oldAllocs: 0,
    });
    expect(grown?.frames).to.have.length(8);
    expect(grown?.frames[1]).to.equal(
      'CppResourceLeaks!LeakHeapMemory+00000083 (...\\cppresourceleaks.cpp, 228)',
    );
    // `-    2018 (     0 -  2018)      0 allocs	BackTrace73F28`
    expect(freed).to.deep.include({
      backtrace: 'BackTrace73F28',
      bytesDelta: -0x2018,
      newBytes: 0,
      oldBytes: 0x2018,
      allocsDelta: -1,
      newAllocs: 0,
      oldAllocs: 1,
    });
    expect(freed?.frames).to.have.length(18);
    expect(freed?.frames.at(-1)).to.equal('ntdll!_RtlUserThreadStart+0000001B');
    expect(record.totalIncrease).to.equal(undefined);
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads Total increase (requested + overhead = total) and keeps umdh`s notices apart', () => {
    const record = parse('umdh/lowleveldesign-umdh-diff-with-total-increase-overhead.txt');
    expect(record.entries).to.have.length(1);
    expect(record.entries[0]).to.deep.include({
      backtrace: 'BackTrace1',
      bytesDelta: 0x27000,
      newBytes: 0x27000,
      oldBytes: 0,
      allocsDelta: 0x9c,
    });
    expect(record.entries[0]?.frames).to.have.length(7);
    expect(record.entries[0]?.frames[3]).to.equal('host!CMainApp::MainHR+00000018');
    // `Total increase ==  27000 requested +    9c0 overhead =  279c0`
    expect(record.totalIncrease).to.equal(0x279c0);
    expect(record.totalIncreaseRequested).to.equal(0x27000);
    expect(record.totalIncreaseOverhead).to.equal(0x9c0);
    expect(record.messages).to.include('DBGHELP: ntdll - export symbols');
    expect(record.messages).to.include(
      'c:\\book\\code\\chapter_08\\HeapLeak\\ExeHeapLeak\\objfre_win7_x86\\i386\\host.pdb',
    );
    expect(record.warnings).to.deep.equal(['elided by the author: ...']);
  });

  it('skips the `//` legend and reads `Total decrease` of an empty comparison', () => {
    const record = parse('umdh/strontic-umdh-10.0.19041-no-args-diff-header.txt');
    expect(record.entries).to.deep.equal([]);
    expect(record.totalDecrease).to.equal(0);
    expect(record.totalIncrease).to.equal(undefined);
    expect(record.warnings).to.deep.equal([]);
  });

  it('streams entries to onEntry without keeping them', () => {
    const seen: UmdhDiffEntry[] = [];
    const parser = createUmdhDiffParser({ onEntry: (e) => seen.push(e) });
    const record = feedLines(parser, transcriptLines('umdh/onecode-umdh-diff-plus-and-minus.txt'));
    assertValid('umdhDiff', record);
    expect(record.entries).to.deep.equal([]);
    expect(record.entryCount).to.equal(2);
    expect(seen.map((e) => [e.backtrace, e.bytesDelta])).to.deep.equal([
      ['BackTrace74050', 0x2a98c90],
      ['BackTrace73F28', -0x2018],
    ]);
  });

  it('keeps a snapshot-style BackTrace block quoted with a comparison as a log entry', () => {
    // The docs show this block for `umdh log1.txt log2.txt > logcompare.txt`; its shape is the
    // snapshot log's (umdhLog.test.ts reads it with parseUmdhLog).
    const record = parse('umdh/docs-diff-backtrace-block.txt');
    expect(record.entries).to.deep.equal([]);
    expect(record.logEntries).to.have.length(1);
    expect(record.logEntries?.[0]).to.deep.include({
      backtrace: 'BackTrace00B53',
      bytes: 0x5320,
      allocs: 0x14,
    });
    expect(record.logEntries?.[0]?.frames).to.have.length(12);
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads the older layout: no count line, no blanks inside the parentheses, a one-figure total', () => {
    const record = parse('umdh/docs-interpreting-log-comparison-one-figure-total.txt');
    // The page's own reading: 0x9DF0 (40,432) bytes then 0xF110 (61,712), 0x5320 (21,280) more.
    expect(record.entries).to.deep.equal([
      {
        backtrace: 'BackTrace00053',
        bytesDelta: 21_280,
        newBytes: 61_712,
        oldBytes: 40_432,
        newAllocs: 0x3a,
        frames: [],
      },
    ]);
    expect(record.totalIncrease).to.equal(0x5320);
    expect(record.totalIncreaseRequested).to.equal(undefined);
    expect(record.warnings).to.deep.equal([]);
  });

  it('reads stack lines with short offsets and no 0x, and says where the author elided', () => {
    const record = parse('umdh/mahdytech-umdh-diff-short-offsets-elided.txt');
    expect(record.entries).to.have.length(1);
    expect(record.entries[0]).to.include({
      backtrace: 'BackTrace9933FD81',
      bytesDelta: 0x154944,
      newAllocs: 1,
      allocsDelta: 1,
      oldAllocs: 0,
    });
    expect(record.entries[0]?.frames).to.deep.equal([
      'ntdll!RtlWalkHeap+213',
      'ntdll!RtlAllocateHeap+A64',
      'KERNELBASE!LocalAlloc+6D',
      'SHELL32!SHGetItemFromDataObject+612',
      'SHELL32!SHCreateShellFolderView+1F4F',
      'SHELL32!SHCreateShellFolderView+A3D',
      'SHELL32!Ordinal915+14B4',
      'SHELL32!Ordinal915+FDE',
    ]);
    expect(record.warnings).to.deep.equal([
      'elided by the author: ....',
      'elided by the author: .....',
    ]);
  });

  it('keeps a frame`s source line with the frame', () => {
    const record = parse('umdh/cn-note-umdh-diff-source-line.txt');
    expect(record.entries[0]).to.include({
      bytesDelta: 0x5a2e86,
      newBytes: 0x2a8067e,
      oldBytes: 0x24dd7f8,
      allocsDelta: 0x29998,
      newAllocs: 0xdc8a0,
      oldAllocs: 0xb2f08,
    });
    expect(record.entries[0]?.frames.at(-1)).to.equal(
      'MSVCR80!malloc+7A (f:\\dd\\vctools\\crt_bld\\self_x86\\crt\\src\\malloc.c, 163)',
    );
    expect(record.warnings).to.deep.equal([]);
  });

  it('umdh -d: the same lines in decimal, read as decimal when the command says -d', () => {
    const text = transcriptBody('umdh/ko-note-umdh-diff-decimal-d.txt');
    const record = parseUmdhDiff(text, { decimal: true });
    assertValid('umdhDiff', record);
    expect(record.radix).to.equal(10);
    expect(record.entries[0]).to.include({
      bytesDelta: 131_072,
      newBytes: 262_144,
      oldBytes: 131_072,
      newAllocs: 4,
      allocsDelta: 2,
      oldAllocs: 2,
    });
    expect(record.totalDecrease).to.equal(488_864);
    expect((record.totalDecreaseRequested ?? 0) + (record.totalDecreaseOverhead ?? 0)).to.equal(
      488_864,
    );
    // Read as hex, the same text gives other numbers: nothing in it says which, only the command.
    expect(parseUmdhDiff(text).entries[0]?.newBytes).to.equal(0x262144);
    expect(
      parseText(text, { command: 'umdh log1.txt log2.txt > logcompare.txt -d' }).entries[0],
    ).to.have.nested.property('record.radix', 10);
  });

  it('keeps a quoted snapshot entry of the newer layout (size + overhead at address) as a log entry', () => {
    const record = parse('umdh/cn-note-umdh-log-allocation-no-symbols.txt');
    expect(record.entries).to.deep.equal([]);
    expect(record.logEntries).to.deep.equal([
      {
        backtrace: 'BackTrace3965308',
        bytes: 0xc6,
        allocs: 1,
        overhead: 0x1a,
        address: '0x56004c0',
        frames: ['77D27AE4', '77C96FCC', '77C95F2E', '758D4D83'],
      },
    ]);
    expect(record.warnings).to.deep.equal([]);
  });

  // Snapshot logs (not comparisons) are read by parseUmdhLog: umdhLog.test.ts reads
  // 'umdh/mahdytech-umdh-log-allocation-no-symbols.txt'.

  it('has a test for every umdh transcript', () => {
    expect(untestedTranscripts(import.meta.url, 'umdh')).to.deep.equal([]);
  });
});
