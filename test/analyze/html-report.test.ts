// report.html in a real headless Chromium: it loads from disk with no network, its bucket table
// matches summary.json row for row, and text from dumps (here a file name with markup in it) is
// shown as text, never run.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  chromiumAvailable,
  launchHeadlessChromium,
  type HeadlessChromium,
} from '../helpers/chromium.js';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { dumpOf, folderWith, readSummary, tempDir } from './fixtures.js';

const HOSTILE_NAME = '<img src=x onerror=alert(1)>.dmp';

describe('analyze report.html (headless Chromium)', function () {
  this.timeout(90_000);
  let browser: HeadlessChromium | undefined;
  let out: string;

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    const input = await folderWith({
      'a.dmp': await dumpOf('av-write', 1),
      'b.dmp': await dumpOf('av-write', 2),
      'c.dmp': await dumpOf('clr-raise'),
    });
    await copyFile(await dumpOf('cpp-throw'), join(input, HOSTILE_NAME));
    out = tempDir('html');
    await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin' });
    browser = await launchHeadlessChromium();
  });

  after(async () => {
    await browser?.close();
  });

  it('loads without any network request and shows one table row per bucket of summary.json', async () => {
    const page = await browser!.context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(pathToFileURL(join(out, 'report.html')).href);
    const summary = readSummary(out);
    const rows = [];
    for (const tr of await page.locator('#buckets tbody tr').all()) {
      const cells = tr.locator('td');
      rows.push({
        id: await tr.getAttribute('data-bucket-id'),
        count: Number(await cells.nth(0).textContent()),
        signature: await cells.nth(2).textContent(),
      });
    }
    expect(rows).to.deep.equal(
      summary.buckets.map((b) => ({ id: b.id, count: b.count, signature: b.signature })),
    );
    expect(await page.locator('#bucket-chart g').count()).to.equal(summary.buckets.length);
    expect(await page.locator('#dumps details').count()).to.equal(summary.dumps);
    expect(requests.filter((u) => !u.startsWith('file:'))).to.deep.equal([]);
    expect(dialogs).to.deep.equal([]);
    await page.close();
  });

  it('shows markup from dump file names as text', async () => {
    const page = await browser!.context.newPage();
    await page.goto(pathToFileURL(join(out, 'report.html')).href);
    expect(await page.$$('#dumps img')).to.have.length(0);
    const text = await page.textContent('#dumps');
    expect(text).to.include(HOSTILE_NAME);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).to.not.include('<img src=x');
    await page.close();
  });
});
