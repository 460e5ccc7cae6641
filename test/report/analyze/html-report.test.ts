// report.html in a real headless Chromium: it loads from disk with no network, its bucket table
// matches summary.json row for row, buckets and dumps link to each other, the dump table searches
// and sorts, a dump's details show what its record holds (exception, stack, modules with
// versions, registers, .NET exception, error) in words rather than field names, and text from
// dumps (a file name with markup in it) is shown as text, never run. The size bound for 10,000
// dumps is checked here (deterministic); the time to open is measured in bench/html-report.ts.
import { expect } from 'chai';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import {
  chromiumAvailable,
  launchHeadlessChromium,
  type HeadlessChromium,
} from '../../helpers/chromium.js';
import type { AnalyzeDumpRecord } from '../../../src/report/analyze/analyze-record.js';
import { writeHtmlReport } from '../../../src/report/analyze/html-report.js';
import { analyzeDumps } from '../../../src/workflows/analyze/analyze.js';
import { dumpOf, folderWith, readNdjson, readSummary, tempDir } from '../../analyze/fixtures.js';
import { exampleRecords, manyRecords, streamOf, summaryOf } from '../../analyze/report-records.js';

const HOSTILE_NAME = '<img src=x onerror=alert(1)>.dmp';

describe('analyze report.html (headless Chromium)', function () {
  this.timeout(120_000);
  let browser: HeadlessChromium | undefined;
  let out: string;
  let input: string;
  const dirs: string[] = [];

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    input = await folderWith({
      'a.dmp': await dumpOf('av-write', 1),
      'b.dmp': await dumpOf('av-write', 2),
      'c.dmp': await dumpOf('clr-raise'),
    });
    await copyFile(await dumpOf('cpp-throw'), join(input, HOSTILE_NAME));
    out = tempDir('html');
    dirs.push(input, out);
    await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin' });
    browser = await launchHeadlessChromium();
  });

  after(async () => {
    await browser?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function open(file: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
    const page = await browser!.context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('dialog', (d) => {
      errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 10_000 });
    return { page, requests, errors };
  }

  const ROWS = '#dump-table > tbody > tr:not(.detail)';
  const visibleFiles = (page: Page) => page.locator(`${ROWS} > td:nth-child(2)`).allTextContents();
  const hrefsOf = async (page: Page, selector: string) => {
    const hrefs: (string | null)[] = [];
    for (const a of await page.locator(selector).all()) hrefs.push(await a.getAttribute('href'));
    return hrefs;
  };
  /** Waits until the dump table shows `n` dumps (the search input is debounced). */
  const rowsShown = (page: Page, n: number) =>
    page.waitForFunction(
      ([selector, count]) => {
        // Runs in the page (a function, not a string: the report's CSP forbids eval).
        const page = globalThis as unknown as {
          document: { querySelectorAll(s: string): { length: number } };
        };
        return page.document.querySelectorAll(selector).length === count;
      },
      [ROWS, n] as const,
    );

  it('loads without any network request and shows one table row per bucket of summary.json', async () => {
    const { page, requests, errors } = await open(join(out, 'report.html'));
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
    expect((await visibleFiles(page)).length).to.equal(summary.dumps);
    expect(requests.filter((u) => !u.startsWith('file:'))).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('labels the chart with signatures and links each bar to its bucket row', async () => {
    const { page } = await open(join(out, 'report.html'));
    const summary = readSummary(out);
    const labels = await page.locator('#bucket-chart g a text').allTextContents();
    expect(labels).to.deep.equal(
      summary.buckets.map((b) =>
        b.signature.length > 56 ? `${b.signature.slice(0, 55)}…` : b.signature,
      ),
    );
    const hrefs = await hrefsOf(page, '#bucket-chart g a');
    expect(hrefs).to.deep.equal(summary.buckets.map((b) => `#b-${b.id}`));
    await page.close();
  });

  it('links a bucket to its dumps and every dump to its bucket', async () => {
    const { page } = await open(join(out, 'report.html'));
    const summary = readSummary(out);
    const two = summary.buckets.find((b) => b.count === 2)!;
    expect(two, 'the two av-write dumps share a bucket').to.not.equal(undefined);
    await page.click(`#b-${two.id} td:first-child a`);
    await rowsShown(page, 2);
    expect((await visibleFiles(page)).sort()).to.deep.equal(['a.dmp', 'b.dmp']);
    const back = await hrefsOf(page, `${ROWS} > td:nth-child(4) a`);
    expect(back).to.deep.equal([`#b-${two.id}`, `#b-${two.id}`]);
    expect(await page.locator(`#b-${two.id}`).count()).to.equal(1);
    await page.close();
  });

  it('searches and sorts the dump table', async () => {
    const { page } = await open(join(out, 'report.html'));
    await page.fill('#dump-search', 'clr exception');
    await rowsShown(page, 1);
    expect(await visibleFiles(page)).to.deep.equal(['c.dmp']);
    await page.fill('#dump-search', '');
    await rowsShown(page, 4);
    // Two dumps have the same size (av-write a and b), so compare sizes, not names.
    const sizeOf = new Map(
      readNdjson(join(out, 'records.ndjson')).map((r) => [r.file.split('/').pop(), r.fileSize]),
    );
    const sizes = async () => (await visibleFiles(page)).map((f) => sizeOf.get(f) ?? -1);
    const all = [...sizeOf.values()];
    await page.click('#dump-table th[data-sort="size"]');
    expect(await sizes()).to.deep.equal([...all].sort((a, b) => a - b));
    await page.click('#dump-table th[data-sort="size"]');
    expect(await sizes()).to.deep.equal([...all].sort((a, b) => b - a));
    expect(await page.getAttribute('#dump-table th[data-sort="size"]', 'aria-sort')).to.equal(
      'descending',
    );
    await page.close();
  });

  it('shows a dump’s exception, stack and modules with versions, in words, not field names', async () => {
    const { page } = await open(join(out, 'report.html'));
    const record = readNdjson(join(out, 'records.ndjson')).find((r) => r.file.endsWith('a.dmp'))!;
    await page.fill('#dump-search', 'a.dmp');
    await rowsShown(page, 1);
    await page.click('#dump-table tbody button.x');
    const detail = (await page.textContent('#dump-table tr.detail')) ?? '';
    expect(detail).to.include(record.exception!.code).and.to.include(record.exception!.name);
    expect(await page.locator('#dump-table tr.detail ol.frames li').count()).to.equal(
      record.frames.length,
    );
    const versioned = record.modules.list!.filter((m) => m.fileVersion !== undefined);
    expect(versioned.length).to.be.above(0);
    for (const m of versioned) expect(detail).to.include(`${m.name} ${m.fileVersion}`);
    expect(detail).to.include('function names (no symbols');
    const page_text = (await page.textContent('body')) ?? '';
    for (const internal of ['frames.symbols', 'clrException', 'heapSummary', 'notAvailable']) {
      expect(page_text).to.not.include(internal);
    }
    await page.close();
  });

  it('shows registers, the .NET exception and a failed dump’s error when the records hold them', async () => {
    const dir = tempDir('html-rich');
    dirs.push(dir);
    const [base] = await exampleRecords(join(dir, 'examples'));
    const rich: AnalyzeDumpRecord = {
      ...base!,
      file: '/crashes/managed.dmp',
      exception: { ...base!.exception!, registers: { rip: '0x7ff6a1b2c3d4', rsp: '0xa3fe10' } },
      clrException: {
        exceptions: [
          {
            address: '0x1f2e3d4c5b6',
            type: 'System.NullReferenceException',
            message: 'Object reference not set to an instance of an object.',
            innerException: null,
            stack: [],
            stackTraceString: null,
            hresult: '0x80004003',
          },
        ],
        noException: false,
        warnings: [],
      },
    };
    const failed: AnalyzeDumpRecord = {
      ...base!,
      file: '/crashes/hung.dmp',
      sha256: 'f'.repeat(64),
      ok: false,
      bucket: null,
      error: {
        code: 'TIMEOUT',
        message: 'The debugger did not answer within 8000 ms.',
        command: '!analyze -v',
        lastOutput: ['0:000> !analyze -v'],
      },
    };
    const records = [rich, failed];
    const report = join(dir, 'report.html');
    await writeHtmlReport(report, await summaryOf(records), streamOf(records));
    const { page, errors } = await open(report);
    for (const button of await page.locator('#dump-table tbody button.x').all())
      await button.click();
    const text = (await page.textContent('#dump-table')) ?? '';
    expect(text).to.include('rip=0x7ff6a1b2c3d4').and.to.include('rsp=0xa3fe10');
    expect(text).to.include('System.NullReferenceException');
    expect(text).to.include('Object reference not set to an instance of an object.');
    expect(text).to.include('TIMEOUT').and.to.include('did not answer within 8000 ms');
    expect(text).to.include('0:000> !analyze -v');
    // The failures table links to the failed dump, which opens with its error.
    await page.click('#failures a');
    await rowsShown(page, 1);
    expect(await page.textContent('#dump-table tr.detail')).to.include('did not answer');
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('wraps signatures only between frames, keeps timestamps whole, grids registers and names no missing names', async () => {
    const dir = tempDir('html-layout');
    dirs.push(dir);
    const [base] = await exampleRecords(join(dir, 'examples'));
    const frames = [
      'RtlUserThreadStart',
      'BaseThreadInitThunk',
      'WidgetFactory::CreateWidgetFromConfiguration',
    ].map((fn, k) => ({
      module: 'app',
      function: fn,
      offset: `0x${(k + 1).toString(16)}`,
      trust: 'cfi' as const,
    }));
    // 17 registers, as cdb's `r` prints them on x64 (three to a row).
    const names = [
      'rax',
      'rbx',
      'rcx',
      'rdx',
      'rsi',
      'rdi',
      'rip',
      'rsp',
      'rbp',
      'r8',
      'r9',
      'r10',
      'r11',
      'r12',
      'r13',
      'r14',
      'r15',
    ];
    const record: AnalyzeDumpRecord = {
      ...base!,
      file: '/crashes/layout.dmp',
      dumpTimestamp: '2026-11-27T20:31:07.000Z',
      frames,
      // A builtin record with names from elsewhere can still list `frames.symbols`.
      notAvailable: ['frames.symbols', 'clrException'],
      exception: {
        ...base!.exception!,
        registers: Object.fromEntries(
          names.map((n, i) => [n, `0x${(0x7ff6a1b2c3d0 + i).toString(16)}`]),
        ),
      },
      bucket: {
        id: 'a1b2c3d4e5f60718',
        signature: `0xc0000005 | ${frames.map((f) => `app!${f.function}`).join(' | ')}`,
        algorithm: 'cdbh-sig-1',
      },
    };
    const report = join(dir, 'report.html');
    await writeHtmlReport(report, await summaryOf([record]), streamOf([record]));
    const { page, errors } = await open(report);
    await page.setViewportSize({ width: 420, height: 900 });
    await page.click('#dump-table tbody button.x');
    /** The few DOM members these checks use (the tests compile without the DOM library); casts only, as these functions run in the page. */
    interface Box {
      textContent: string | null;
      getClientRects(): { length: number };
      getBoundingClientRect(): { top: number };
      ownerDocument: {
        createRange(): {
          selectNodeContents(node: Box): void;
          getClientRects(): { length: number };
        };
      };
    }
    /** How many line boxes each element's text takes (an inline element broken mid-token has 2+). */
    const lineBoxes = (selector: string) =>
      page.$$eval(selector, (els) =>
        (els as unknown as Box[]).map((el) => el.getClientRects().length),
      );
    const tokens = await lineBoxes('#buckets .sig .tok, #dump-table tr.detail .sig .tok');
    expect(tokens.length).to.equal(2 * 4);
    expect(
      tokens.every((n) => n === 1),
      `line boxes per token: ${tokens.join(',')}`,
    ).to.equal(true);
    // The signature still wraps (between frames) in a narrow window.
    const sigBoxes = await lineBoxes('#buckets .sig');
    expect(sigBoxes[0]).to.be.above(1);
    // A timestamp's text takes one line box, in the dump table, its details and the bucket table.
    const times = await page.$$eval('td.nowrap, span.nowrap', (els) =>
      (els as unknown as Box[]).map((el) => {
        const range = el.ownerDocument.createRange();
        range.selectNodeContents(el);
        return [el.textContent, range.getClientRects().length] as const;
      }),
    );
    // The dump row, its details, and the bucket's first and last seen.
    expect(times.filter((t) => t[0] === '2026-11-27T20:31:07.000Z')).to.have.length(4);
    expect(times.filter((t) => t[1] !== 1 && t[0] !== '')).to.deep.equal([]);
    // Registers: a grid of rows of three, not one per line.
    const tops = await page.$$eval('#dump-table .regs span', (els) =>
      (els as unknown as Box[]).map((el) => Math.round(el.getBoundingClientRect().top)),
    );
    expect(tops).to.have.length(17);
    expect(new Set(tops).size).to.equal(6);
    const detail = (await page.textContent('#dump-table tr.detail')) ?? '';
    expect(detail).to.include('rip=0x');
    expect(detail).to.include('the managed (.NET) exception');
    expect(detail).to.not.include('function names');
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('never breaks an error code, exception code or bucket id mid-word, even in a narrow window', async () => {
    const dir = tempDir('html-codes');
    dirs.push(dir);
    const [base] = await exampleRecords(join(dir, 'examples'));
    const failed: AnalyzeDumpRecord = {
      ...base!,
      file: `/crashes/${'long-name-'.repeat(6)}.dmp`,
      sha256: 'e'.repeat(64),
      ok: false,
      bucket: null,
      error: {
        code: 'BAD_DUMP',
        message: `not a readable minidump: ${'no MDMP signature '.repeat(8)}`,
      },
    };
    const records = [base!, failed];
    const report = join(dir, 'report.html');
    await writeHtmlReport(report, await summaryOf(records), streamOf(records));
    const { page, errors } = await open(report);
    await page.setViewportSize({ width: 360, height: 900 });
    for (const button of await page.locator('#dump-table tbody button.x').all())
      await button.click();
    /** The DOM members used here (the tests compile without the DOM library). */
    interface Box {
      textContent: string | null;
      getClientRects(): { length: number };
    }
    const codes = await page.$$eval('code', (els) =>
      (els as unknown as Box[]).map((el) => [el.textContent, el.getClientRects().length] as const),
    );
    const short = codes.filter(([text]) =>
      /^(?:BAD_DUMP|0x[0-9a-f]{8}|[0-9a-f]{16})$/.test(text ?? ''),
    );
    expect(short.filter(([text]) => text === 'BAD_DUMP')).to.have.length.at.least(2);
    expect(short.filter(([, boxes]) => boxes !== 1)).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('shows markup from dump file names as text', async () => {
    const { page, errors } = await open(join(out, 'report.html'));
    expect(await page.$$('#dump-table img')).to.have.length(0);
    const text = await page.textContent('#dump-table');
    expect(text).to.include(HOSTILE_NAME);
    await page.fill('#dump-search', 'onerror');
    await rowsShown(page, 1);
    await page.click('#dump-table tbody button.x');
    expect(await page.$$('#dump-table img')).to.have.length(0);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).to.not.include('<img src=x');
    expect(errors).to.deep.equal([]);
    await page.close();
  });
});

describe('analyze report.html size', function () {
  this.timeout(120_000);

  it('stays under 5 MB for 10,000 dumps', async () => {
    const dir = tempDir('html-size');
    try {
      const bases = await exampleRecords(join(dir, 'examples'));
      const report = join(dir, 'report.html');
      await writeHtmlReport(
        report,
        await summaryOf(manyRecords(bases, 10_000)),
        streamOf(manyRecords(bases, 10_000)),
      );
      const bytes = statSync(report).size;
      expect(bytes).to.be.below(5 * 1024 * 1024);
      // Every dump is in it: the data block has one row per record.
      const html = readFileSync(report, 'utf8');
      const data = /<script type="application\/json" id="cdbh-dumps">([\s\S]*?)<\/script>/.exec(
        html,
      );
      expect((JSON.parse(data![1]!) as unknown[]).length).to.equal(10_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
