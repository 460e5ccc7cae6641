// The `--clr` report's .NET types table at 1400 px in real headless Chromium: long generic type
// names (the longest of recorded `dumpheap -stat` outputs, .NET Framework's `Dictionary`2+Entry[[…]][]`
// and .NET 10's `ConditionalWeakTable<…>+Enumerator`) wrap inside their cell, the whole name in
// its title, and the page never scrolls sideways.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseDumpHeapStat } from '../../../src/parsers/dump-heap-stat.js';
import { renderHeapTrendHtml } from '../../../src/report/heap-trend/html.js';
import { buildHeapTrendReport } from '../../../src/report/heap-trend/report.js';
import type { HeapTrendSample } from '../../../src/report/heap-trend/types.js';
import { chromiumAvailable, launchHeadlessChromium } from '../../helpers/chromium.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT } from '../../helpers/wine.js';
import { readTranscriptFile } from '../../parsers/transcripts.js';

const TRANSCRIPTS = join(REPO_ROOT, 'test', 'fixtures', 'transcripts');
const SOURCES = [
  'misc/dumpheap-stat-netfx48-x86-no-total.txt',
  'dotnet-dump/dumpheap-stat-small-linux-net10.txt',
];

/** The longest type names SOS printed in the recorded outputs. */
function longTypeNames(count: number): string[] {
  const names = SOURCES.flatMap((file) => {
    const t = readTranscriptFile(join(TRANSCRIPTS, file), file);
    return parseDumpHeapStat(t.body).types.map((type) => type.className);
  });
  return [...new Set(names)].sort((a, b) => b.length - a.length).slice(0, count);
}

const T0 = Date.parse('2026-12-06T08:00:00.000Z');

function samples(names: readonly string[]): HeapTrendSample[] {
  return Array.from({ length: 6 }, (_, i) => ({
    time: new Date(T0 + i * 10_000).toISOString(),
    heaps: [{ id: 'gen2', committedKb: 1024 + 512 * i }],
    clrTypes: names.map((id, n) => ({ id, committedKb: n === 0 ? 100 + 400 * i : 50 + n })),
    suspendedMs: 40,
    source: 'clr-generation' as const,
    index: i,
    elapsedMs: i * 10_000,
    totalCommittedKb: 1024 + 512 * i,
    durationMs: 60,
    engine: 'dotnet-dump' as const,
    warnings: [],
  }));
}

describe('heap-trend --clr report: the .NET types table', function () {
  this.timeout(60_000);

  it('fits 1400 px with the longest recorded generic names: wrapped in the cell, whole in its title', async function () {
    if (!chromiumAvailable()) this.skip();
    const names = longTypeNames(6);
    expect(names[0]?.length).to.be.greaterThan(120);
    const data = samples(names);
    const report = buildHeapTrendReport(data, {
      target: { pid: 4242, name: 'cdbh-dotnet' },
      engine: 'dotnet-dump',
      source: 'clr-generation',
      intervalMs: 10_000,
      startedAt: data[0]?.time ?? '',
      endedAt: data[5]?.time ?? '',
      status: 'completed',
    });
    const html = join(makeTempDir('clr-types-table'), 'report.html');
    writeFileSync(html, renderHeapTrendHtml(report, data));
    expect(readFileSync(html, 'utf8')).to.include('id="clr-types"');
    const browser = await launchHeadlessChromium();
    try {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 1400, height: 900 });
      await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
      /** The DOM members used here (the tests compile without the DOM library). */
      interface Box {
        textContent: string | null;
        title: string;
        scrollWidth: number;
        getBoundingClientRect(): { right: number };
      }
      const page1400 = await page.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: Box } }).document.documentElement
            .scrollWidth,
      );
      expect(page1400, 'the page scrolls sideways').to.be.at.most(1400);
      const right = await page.$eval('#clr-types', (el) =>
        Math.round((el as unknown as Box).getBoundingClientRect().right),
      );
      expect(right).to.be.at.most(1400);
      const cells = await page.$$eval('#clr-types td.name', (els) =>
        (els as unknown as Box[]).map((el) => [el.textContent, el.title] as const),
      );
      expect(cells.map(([text]) => text)).to.have.members(names);
      for (const [text, title] of cells) expect(title).to.equal(text);
      await page.close();
    } finally {
      await browser.close();
    }
  });
});
