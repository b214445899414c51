import { existsSync } from 'node:fs';
import type { Express } from 'express';
import { chromium, type Browser } from 'playwright-core';
import { listenOnLoopback } from './listening-app';

/** Debian's `chromium` (which `.ci/run` installs), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// Skipped on a machine without Chromium, unless REQUIRE_BROWSER is set (as `.ci/run` sets it).
if (process.env.REQUIRE_BROWSER && !existsSync(CHROMIUM)) throw new Error(`REQUIRE_BROWSER is set but ${CHROMIUM} is missing (apt-get install chromium)`);
export const describeWithBrowser = existsSync(CHROMIUM) ? describe : describe.skip;

/** The app listening on a loopback port, and a headless Chromium to open its pages. */
export interface BrowserServer {
  /** `127.0.0.1:port`. */
  host: string;
  /** `http://127.0.0.1:port`. */
  base: string;
  browser: Browser;
  /** Closes the browser, then the server and its connections. */
  close(): Promise<void>;
}

export async function serveToBrowser(app: Express): Promise<BrowserServer> {
  const listening = await listenOnLoopback(app);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  return {
    host: new URL(listening.origin).host,
    base: listening.origin,
    browser,
    close: async () => {
      await browser.close();
      await listening.close();
    },
  };
}
