import { expect } from 'chai';
import { feedLines } from '../../src/parsers/line-parser.js';
import type { UmdhDiffEntry, UmdhDiffRecord } from '../../src/parsers/records.js';
import { createUmdhDiffParser, parseUmdhDiff } from '../../src/parsers/umdh.js';
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

  it('has a test for every umdh transcript', () => {
    expect(untestedTranscripts(import.meta.url, 'umdh')).to.deep.equal([]);
  });
});
