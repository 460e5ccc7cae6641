// RunRecords (src/workflows/analyze/run-records.ts): a fresh run's summary.json and report.html,
// made from what was gathered as each record was written, are byte for byte the ones a read of its
// records.ndjson gives (writeSummaryAndReport without `collected`), also when the report rows
// outgrow their bound and the report is streamed from the file after all.
import { expect } from 'chai';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnalyzeDumpRecord } from '../../../src/report/analyze/analyze-record.js';
import { ReportRows } from '../../../src/report/analyze/report-data.js';
import { writeSummaryAndReport } from '../../../src/workflows/analyze/outputs.js';
import { RunRecords } from '../../../src/workflows/analyze/run-records.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { exampleRecords, manyRecords } from '../../analyze/report-records.js';

const ALGORITHM = 'cdbh-sig-2';

/** Real example records, many varied ones (failures among them), and names with markup. */
async function records(): Promise<AnalyzeDumpRecord[]> {
  const bases = await exampleRecords(makeTempDir('run-records-ex'));
  const many = [...manyRecords(bases, 240, 40)];
  many[3] = { ...many[3]!, file: '/srv/</script><b>x\u2028y.dmp' };
  many[7] = { ...many[7]!, bucket: null };
  return [...bases, ...many];
}

/** summary.json and report.html of `dir`, without the time they were written. */
function outputs(dir: string): { summary: string; report: string } {
  return {
    summary: readFileSync(join(dir, 'summary.json'), 'utf8').replace(/"generatedAt": "[^"]*"/, ''),
    report: readFileSync(join(dir, 'report.html'), 'utf8').replace(/generated \S+ by/, ''),
  };
}

/** Writes `list` through RunRecords into a new folder; returns it and what was collected. */
async function written(list: readonly AnalyzeDumpRecord[]) {
  const dir = makeTempDir('run-records');
  const run = await RunRecords.open(join(dir, 'records.ndjson'), ALGORITHM, true);
  await Promise.all(list.map((r) => run.append(r)));
  await run.close();
  // The same records file in another folder, summarised the old way: read back.
  const readBack = makeTempDir('run-records-read');
  copyFileSync(join(dir, 'records.ndjson'), join(readBack, 'records.ndjson'));
  await writeSummaryAndReport(readBack, ALGORITHM, { onePerInput: true });
  return { dir, readBack, collected: run.collected! };
}

describe('RunRecords (src/workflows/analyze/run-records.ts)', function () {
  this.timeout(60_000);

  it('gives the summary and report a read of its records.ndjson gives', async () => {
    const list = await records();
    const { dir, readBack, collected } = await written(list);
    expect(collected.rows.overflowed).to.equal(false);
    const summary = await writeSummaryAndReport(dir, ALGORITHM, { onePerInput: true, collected });
    expect(summary.dumps).to.equal(list.length);
    const ours = outputs(dir);
    expect(ours.report).to.include('\\u003c/script>');
    expect(ours.summary).to.equal(outputs(readBack).summary);
    expect(ours.report).to.equal(outputs(readBack).report);
  });

  it('streams the report from the file when the rows outgrew their bound', async () => {
    const list = await records();
    const { dir, readBack, collected } = await written(list);
    const rows = new ReportRows(2000);
    for (const r of list) rows.add(r);
    expect(rows.overflowed).to.equal(true);
    expect([...rows.rowsJson(new Map())]).to.deep.equal([]);
    await writeSummaryAndReport(dir, ALGORITHM, {
      onePerInput: true,
      collected: { summary: collected.summary, rows },
    });
    expect(outputs(dir).report).to.equal(outputs(readBack).report);
  });

  it('gathers nothing for a run that goes on from earlier records (--resume)', async () => {
    const dir = makeTempDir('run-records');
    const run = await RunRecords.open(join(dir, 'records.ndjson'), ALGORITHM, false);
    await run.close();
    expect(run.collected).to.equal(undefined);
  });
});
