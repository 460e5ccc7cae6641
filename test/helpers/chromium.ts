// Headless Chromium for the report tests: the system browser through playwright-core, a fresh
// profile per launch (nothing carried over between runs), and every background service off so
// that any network request a test sees comes from the page itself.
import { existsSync, rmSync } from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';
import { makeTempDir } from './temp-dir.js';

export const CHROMIUM = '/usr/bin/chromium';

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM);
}

export interface HeadlessChromium {
  context: BrowserContext;
  /** Closes the browser and deletes its profile. */
  close(): Promise<void>;
}

export async function launchHeadlessChromium(): Promise<HeadlessChromium> {
  // playwright takes the profile folder as launchPersistentContext's first argument.
  const userDataDir = makeTempDir('chromium');
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
