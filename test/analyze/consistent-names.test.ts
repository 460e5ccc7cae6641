// `inspect --json` and `records.ndjson` say the same facts under the same names (fileSize,
// dumpKind, dumpTimestamp, exception flags as `0x…`, module times as ISO 8601 + epoch), the names
// the record contract published first stay as aliases, and summary.json says which version wrote
// it and how it was run. Checked on a real dump written by winedbg (examples/dumps).
import { expect } from 'chai';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectDump, type InspectedDumpOk } from '../../src/report/inspect/index.js';
import type { AnalyzeDumpRecord, AnalyzeSummary } from '../../src/report/analyze/analyze-record.js';
import { readRecords } from '../../src/report/analyze/records-file.js';
import { validate } from '../../src/report/schemas.js';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { REPO_ROOT } from '../helpers/wine.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;
const DUMP = join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp');

describe('one name per fact: inspect --json and records.ndjson', function () {
  this.timeout(60_000);
  let dir = '';
  let inspected: InspectedDumpOk;
  let record: AnalyzeDumpRecord;
  let summary: AnalyzeSummary;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cdbh-names-'));
    copyFileSync(DUMP, join(dir, 'crash.dmp'));
    const dump = await inspectDump(join(dir, 'crash.dmp'));
    if (!dump.ok) throw new Error(dump.error.message);
    inspected = dump;
    await analyzeDumps({
      inputs: [join(dir, 'crash.dmp')],
      outDir: join(dir, 'out'),
      engine: 'builtin',
    });
    const lines = readFileSync(join(dir, 'out', 'records.ndjson'), 'utf8')
      .trim()
      .split('\n');
    expect(lines).to.have.length(1);
    record = JSON.parse(lines[0]!) as AnalyzeDumpRecord;
    summary = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8')) as AnalyzeSummary;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives size, kind and time of the dump the same names and values', () => {
    expect(record.fileSize).to.equal(inspected.fileSize).and.to.be.above(100_000);
    expect(record.dumpKind).to.equal(inspected.dumpKind).and.to.equal('mini');
    expect(record.dumpTimestamp).to.equal(inspected.dumpTimestamp).and.to.match(ISO);
  });

  it('keeps the names published first as aliases with the same values', () => {
    expect(inspected.kind).to.equal(inspected.dumpKind);
    expect(inspected.timestamp).to.equal(inspected.dumpTimestamp);
    expect(record.size).to.equal(record.fileSize);
  });

  it('writes exception flags as 0x… in both', () => {
    expect(inspected.exception?.flags).to.match(/^0x[0-9a-f]+$/);
    expect(record.exception?.flags).to.equal(inspected.exception?.flags);
  });

  it('writes module times as ISO 8601 with the epoch beside, in both', () => {
    const faulting = record.modules.faulting;
    const module = inspected.modules.find((m) => m.name === faulting?.name);
    expect(module, 'the faulting module is in the module list').to.not.equal(undefined);
    expect(module?.timestamp).to.match(ISO);
    expect(Date.parse(module?.timestamp ?? '') / 1000).to.equal(module?.timestampEpoch);
    expect(faulting?.timestamp).to.equal(module?.timestamp);
    expect(faulting?.timestampEpoch).to.equal(module?.timestampEpoch);
    for (const m of inspected.unloadedModules) expect(m.timestamp).to.match(ISO);
  });

  it('both validate against their schemas (which check date-time formats)', () => {
    expect(validate('inspect', { schemaVersion: 1, dumps: [inspected] }).errors).to.deep.equal([]);
    expect(validate('analyzeRecord', record).errors).to.deep.equal([]);
    const bad = { ...record, dumpTimestamp: '2026-13-45 25:00' };
    expect(validate('analyzeRecord', bad).ok).to.equal(false);
  });

  it('puts the tool version and the options used into summary.json', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(summary.tool).to.deep.equal({ name: 'cdb-harness', version: pkg.version });
    expect(summary.options).to.include({
      command: 'analyze',
      engineRequested: 'builtin',
      engine: 'builtin',
      resume: false,
    });
    expect(summary.options?.inputs).to.deep.equal([join(dir, 'crash.dmp')]);
    expect(summary.generatedAt).to.match(ISO);
    expect(validate('analyzeSummary', summary).errors).to.deep.equal([]);
  });

  it('reads records written before the rename with the new names filled in', async () => {
    const old: Record<string, unknown> = { ...record, modules: { ...record.modules } };
    delete old['fileSize'];
    (old['modules'] as { faulting: Record<string, unknown> }).faulting = {
      name: 'kernelbase.dll',
      timestamp: 1676758571,
    };
    const file = join(dir, 'old.ndjson');
    writeFileSync(file, `${JSON.stringify(old)}\n`);
    const read: AnalyzeDumpRecord[] = [];
    for await (const r of readRecords(file)) read.push(r);
    expect(read[0]?.fileSize).to.equal(record.size);
    expect(read[0]?.modules.faulting).to.deep.equal({
      name: 'kernelbase.dll',
      timestamp: '2023-02-18T22:16:11.000Z',
      timestampEpoch: 1676758571,
    });
  });
});
