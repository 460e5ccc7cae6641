// One hostile dump must not stop a batch or write a giant record: a ModuleList claiming tens of
// thousands of modules whose names and CodeView records lie at 0xfffffff0 (the million-module
// dump of issue 22, smaller) gives bounded warnings, a bounded record and a reason; several hard
// links to it in one batch each get their record. boundRecord's own limits are checked directly.
import { expect } from 'chai';
import { linkSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectDump } from '../../src/report/inspect/inspect-json.js';
import { MAX_MODULES } from '../../src/minidump/streams/module-list.js';
import type { AnalyzeDumpRecord } from '../../src/report/analyze/analyze-record.js';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { emptyRecord } from '../../src/workflows/analyze/analyze-one.js';
import {
  boundRecord,
  MAX_RECORD_BYTES,
  MAX_RECORD_FRAMES,
} from '../../src/workflows/analyze/record-bounds.js';
import { manyModulesDump } from '../helpers/hostile-dumps.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const CLAIMED = MAX_MODULES * 2 + 123;

describe('records bounded on hostile dumps', function () {
  this.timeout(120_000);

  it('inspect: a module list claiming more than MAX_MODULES is cut, warnings bounded', async () => {
    const dir = makeTempDir('many-modules');
    const path = join(dir, 'many.dmp');
    writeFileSync(path, manyModulesDump(CLAIMED));
    const dump = await inspectDump(path);
    expect(dump.ok).to.equal(true);
    if (!dump.ok) return;
    expect(dump.modules).to.have.length(MAX_MODULES);
    expect(dump.warnings.join('\n')).to.match(
      new RegExp(`claims ${CLAIMED} modules.*only the first ${MAX_MODULES} are read`),
    );
    expect(dump.warnings.length).to.be.below(120);
    expect(dump.truncated).to.equal(true);
  });

  it('analyze: hard links to the hostile dump in one batch each get a bounded record with the reason', async () => {
    const dir = makeTempDir('many-modules-batch');
    const first = join(dir, 'm0.dmp');
    writeFileSync(first, manyModulesDump(CLAIMED));
    for (let i = 1; i < 4; i++) linkSync(first, join(dir, `m${i}.dmp`));
    const out = join(dir, 'out');
    const result = await analyzeDumps({ inputs: [dir], outDir: out, engine: 'builtin' });
    expect(result.summary.dumps).to.equal(4);
    const lines = readFileSync(join(out, 'records.ndjson'), 'utf8').trim().split('\n');
    expect(lines).to.have.length(4);
    for (const line of lines) {
      expect(Buffer.byteLength(line)).to.be.below(MAX_RECORD_BYTES);
      const record = JSON.parse(line) as AnalyzeDumpRecord;
      expect(record.ok).to.equal(false);
      expect(record.error?.message).to.match(/TRUNCATED: .*ModuleList strings/);
      expect(record.warnings.length).to.be.below(120);
      expect(record.warnings.join('\n')).to.match(/only the first \d+ are read/);
    }
  });

  it('boundRecord: warnings capped per kind with a count, frames capped, strings cut, then a failed record', () => {
    const base = emptyRecord('/d/x.dmp', { sha256: 'ab'.repeat(32), size: 10 }, 'builtin');
    const noisy: AnalyzeDumpRecord = {
      ...base,
      ok: true,
      warnings: Array.from({ length: 50_000 }, (_, i) => `module ${i}: name unreadable`),
      frames: Array.from({ length: 5000 }, (_, i) => ({ address: `0x${i.toString(16)}` })),
    };
    const bounded = boundRecord(noisy);
    expect(bounded.warnings.slice(0, 5)).to.deep.equal(
      Array.from({ length: 5 }, (_, i) => `module ${i}: name unreadable`),
    );
    expect(bounded.warnings).to.include('(49995 more like: module 0: name unreadable)');
    expect(bounded.frames).to.have.length(MAX_RECORD_FRAMES);

    const longNames: AnalyzeDumpRecord = {
      ...base,
      ok: true,
      frames: Array.from({ length: 200 }, () => ({ function: 'f'.repeat(10_000) })),
    };
    const cut = boundRecord(longNames);
    expect(Buffer.byteLength(JSON.stringify(cut))).to.be.at.most(MAX_RECORD_BYTES);
    expect(cut.ok).to.equal(true);
    expect(cut.warnings.join(' ')).to.match(/strings longer than 1024 characters were cut/);

    const wide: AnalyzeDumpRecord = {
      ...base,
      ok: true,
      rawOutputs: Array.from({ length: 5000 }, (_, i) => ({
        command: `k${i}`,
        path: 'p'.repeat(900),
      })),
    };
    const refused = boundRecord(wide);
    expect(refused.ok).to.equal(false);
    expect(refused.error?.code).to.equal('OUTPUT_LIMIT');
    expect(refused.sha256).to.equal(base.sha256);
    expect(Buffer.byteLength(JSON.stringify(refused))).to.be.below(4096);
  });
});
