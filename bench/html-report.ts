// report.html for a big crash collection: size of the page and time to open it in headless
// Chromium, until the page script has drawn the dump table (body[data-ready]). Goals (issue 14):
// 10,000 dumps under 5 MB, open in under 2 s. The records are the real example-dump records
// varied into N dumps over a few hundred signatures (test/analyze/report-records.ts). Also times
// writing the page and one search over all dumps.
//
//   node --import tsx bench/html-report.ts [--dumps 10000] [--opens 5]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeHtmlReport } from '../src/report/analyze/html-report.js';
import { chromiumAvailable, launchHeadlessChromium, CHROMIUM } from '../test/helpers/chromium.js';
import {
  exampleRecords,
  manyRecords,
  streamOf,
  summaryOf,
} from '../test/analyze/report-records.js';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const DUMPS = arg('--dumps', 10_000);
const OPENS = arg('--opens', 5);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

const dir = mkdtempSync(join(tmpdir(), 'cdbh-bench-html-'));
try {
  const bases = await exampleRecords(join(dir, 'examples'));
  const report = join(dir, 'report.html');
  const summary = await summaryOf(manyRecords(bases, DUMPS));
  const started = performance.now();
  await writeHtmlReport(report, summary, streamOf(manyRecords(bases, DUMPS)));
  const writeMs = performance.now() - started;
  const bytes = statSync(report).size;
  console.log(
    `report.html for ${DUMPS} dumps, ${summary.buckets.length} buckets: ${(bytes / 2 ** 20).toFixed(2)} MB (goal < 5 MB for 10,000), written in ${writeMs.toFixed(0)} ms`,
  );
  if (!chromiumAvailable()) {
    console.log(`no Chromium at ${CHROMIUM}: open time not measured`);
  } else {
    const browser = await launchHeadlessChromium();
    try {
      const opens: number[] = [];
      const searches: number[] = [];
      for (let i = 0; i < OPENS; i++) {
        const page = await browser.context.newPage();
        const t0 = performance.now();
        await page.goto(pathToFileURL(report).href);
        await page.waitForSelector('body[data-ready="1"]', { timeout: 60_000 });
        opens.push(performance.now() - t0);
        const t1 = performance.now();
        await page.fill('#dump-search', 'Method17_2');
        await page.waitForFunction(
          () =>
            (
              globalThis as unknown as {
                document: { getElementById(id: string): { textContent: string | null } | null };
              }
            ).document
              .getElementById('dump-count')
              ?.textContent?.includes('match') === true,
        );
        searches.push(performance.now() - t1);
        await page.close();
      }
      console.log(
        `open in headless Chromium to the drawn dump table: median ${median(opens).toFixed(0)} ms of ${OPENS} (goal < 2000 ms); runs ${opens.map((t) => t.toFixed(0)).join(', ')}`,
      );
      console.log(
        `one search over all dumps (incl. the 120 ms input debounce): median ${median(searches).toFixed(0)} ms`,
      );
    } finally {
      await browser.close();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
