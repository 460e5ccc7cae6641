import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderHeapTrendHtml } from '../../src/report/heap-trend/html.js';
import { renderHeapTrendMarkdown } from '../../src/report/heap-trend/markdown.js';
import { buildHeapTrendReport } from '../../src/report/heap-trend/report.js';
import type { HeapTrendSample } from '../../src/report/heap-trend/types.js';
import { assertValid } from '../../src/report/schemas.js';
import { chromiumAvailable } from '../helpers/chromium.js';
import { checkReportInChromium } from './chromium-check.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');

/** 12 samples, 30 s apart: a leaking heap, a flat one, one that appears late, one with a gap. */
function samples(): HeapTrendSample[] {
  return Array.from({ length: 12 }, (_, i) => {
    const heaps = [
      { id: '0x10a0000', reservedKb: 8192, committedKb: 1024 + 512 * i },
      { id: '0x20000', reservedKb: 1024, committedKb: 300 },
      ...(i >= 6 ? [{ id: '0x5550000', reservedKb: 64, committedKb: 16 * i }] : []),
      ...(i === 4 || i === 5 ? [] : [{ id: '<script>alert(1)</script>', committedKb: 40 }]),
    ];
    return {
      time: new Date(T0 + i * 30_000).toISOString(),
      heaps,
      suspendedMs: 42,
      source: 'heap' as const,
      index: i,
      elapsedMs: i * 30_000,
      totalCommittedKb: heaps.reduce((s, h) => s + h.committedKb, 0),
      durationMs: 50,
      engine: 'cdb' as const,
      warnings: [],
    };
  });
}

describe('heap-trend report files', function () {
  this.timeout(60_000);
  const data = samples();
  const report = buildHeapTrendReport(data, {
    target: { pid: 1234, name: 'svc & <co>.exe' },
    engine: 'cdb',
    source: 'heap',
    intervalMs: 30_000,
    startedAt: data[0]?.time ?? '',
    endedAt: data[11]?.time ?? '',
    status: 'completed',
    limitKb: 2 * 1024 * 1024,
  });

  it('builds a schema-valid report with the records.md fields', () => {
    assertValid('heapTrendReport', report);
    expect(report.ranking[0]).to.equal('0x10a0000');
    expect(report.series[0]).to.include({ suspect: true, slopeKbPerMin: 1024, r2: 1 });
    expect(report.suspension).to.deep.equal({ totalMs: 504, maxMs: 42, meanMs: 42 });
    for (const sample of data) assertValid('heapTrendSample', sample);
  });

  it('escapes every text in the HTML and needs nothing from the network', () => {
    const html = renderHeapTrendHtml(report, data);
    expect(html).to.not.contain('<script>');
    expect(html).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).to.contain('svc &amp; &lt;co&gt;.exe');
    expect(html).to.not.match(/https?:\/\//);
    expect(html).to.not.match(/<link |<img |<script/);
  });

  it('draws a gap as a new subpath of the same single line', () => {
    const html = renderHeapTrendHtml(report, data);
    const id = '&lt;script&gt;alert(1)&lt;/script&gt;';
    const path = new RegExp(
      `<path class="series-line" data-series="${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^>]* d="([^"]+)"`,
    ).exec(html);
    expect(path?.[1]?.match(/M/g)).to.have.length(2);
  });

  it('writes Markdown with the rule, the ranking and table-safe cells', () => {
    const md = renderHeapTrendMarkdown(report);
    expect(md).to.contain('## Rule');
    expect(md).to.contain(report.rule);
    expect(md).to.match(/\| 1 \| `0x10a0000` \| \*\*yes\*\* \|/);
    expect(md).to.contain('Projection to 2 GB');
  });

  it('renders in headless Chromium with exactly one line per series', async function () {
    if (!chromiumAvailable()) this.skip();
    const dir = makeTempDir('report');
    const file = join(dir, 'report.html');
    writeFileSync(file, renderHeapTrendHtml(report, data));
    const check = await checkReportInChromium(file, report.series.length, 'heap-trend.png');
    expect(check.seriesLines).to.equal(4);
    expect(check.title).to.equal('Heap trend: pid 1234');
  });
});
