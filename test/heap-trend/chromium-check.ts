// Opens a heap-trend report.html in real headless Chromium (no network: the page must stand alone),
// saves a screenshot under build/test-output/ and checks the charts: exactly one series line per
// series, each in its own chart, and a stacked total.
import { expect } from 'chai';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchHeadlessChromium } from '../helpers/chromium.js';
import { REPO_ROOT } from '../helpers/wine.js';

export const TEST_OUTPUT = join(REPO_ROOT, 'build', 'test-output');

export interface ChartCheck {
  seriesLines: number;
  chartsWithOneLine: number;
  cards: number;
  stackedAreas: number;
  requests: string[];
  title: string;
}

export async function checkReportInChromium(
  htmlPath: string,
  expectedSeries: number,
  screenshotName: string,
): Promise<ChartCheck> {
  const browser = await launchHeadlessChromium();
  try {
    const page = await browser.context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const response = await page.goto(pathToFileURL(htmlPath).href, { waitUntil: 'load' });
    expect(response?.ok() ?? true).to.equal(true);
    const cardLocator = page.locator('#series-charts .card');
    const cards = await cardLocator.count();
    let chartsWithOneLine = 0;
    for (let i = 0; i < cards; i++) {
      if ((await cardLocator.nth(i).locator('path, polyline').count()) === 1) chartsWithOneLine++;
    }
    const check = {
      seriesLines: await page.locator('#series-charts path.series-line').count(),
      chartsWithOneLine,
      cards,
      stackedAreas: await page.locator('svg.stacked polygon.stack-area').count(),
      title: await page.title(),
    };
    mkdirSync(TEST_OUTPUT, { recursive: true });
    const shot = join(TEST_OUTPUT, screenshotName);
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).to.be.greaterThan(1000);
    // Self-contained: the page asked for nothing but itself.
    expect(requests.filter((url) => !url.startsWith('file:'))).to.deep.equal([]);
    expect(check.seriesLines, 'one path per series').to.equal(expectedSeries);
    expect(check.cards).to.equal(expectedSeries);
    expect(check.chartsWithOneLine, 'each chart has exactly one line').to.equal(expectedSeries);
    if (expectedSeries > 0) expect(check.stackedAreas).to.be.greaterThan(0);
    return { ...check, requests };
  } finally {
    await browser.close();
  }
}
