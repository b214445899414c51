import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildConsole } from '../../scripts/build-console';
import { testBatchConfig } from '../helpers/batch-config';
import { describeWithBrowser, serveToBrowser, type BrowserServer } from '../helpers/browser-server';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { keylessProviders, seedWidths, type WidthsSeed } from './console-widths-seed';

/**
 * The console on a phone (390 px) and a wide screen (1400 px), in headless Chromium, with an
 * organization's realistic data (console-widths-seed.ts): no page is wider than the screen (a table
 * scrolls in its own box); a Space whose providers have no key lists the models that can answer first,
 * filters them by availability and counts as on only those that can answer; a log shows a web search as a
 * plugin call with its own time and its sources (none of their text at privacy level 2); the costs call
 * requests refused before routing so. With CONSOLE_SCREENSHOTS set to a folder, each page is saved there.
 */

const SHOTS = process.env.CONSOLE_SCREENSHOTS;
jest.setTimeout(120_000);

/** The few browser globals the page functions use (the test program is compiled without DOM types). */
interface PageElement {
  tagName: string;
  className: unknown;
  children: ArrayLike<PageElement>;
  getBoundingClientRect(): { right: number };
}
interface PageGlobals {
  document: { documentElement: { scrollWidth: number }; body: PageElement & { querySelectorAll(selector: string): ArrayLike<PageElement> } };
  innerWidth: number;
}

describeWithBrowser('the console at a phone’s width and a wide screen', () => {
  let ctx: TestContext;
  let owner: Tenant;
  let seed: WidthsSeed;
  let served: BrowserServer | undefined;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    await buildConsole();
    ctx = createTestContext({ providers: keylessProviders(), batches: testBatchConfig() });
    owner = await ctx.tenant();
    seed = await seedWidths(ctx, ctx.app, owner);
    served = await serveToBrowser(ctx.app);
    ({ base, browser } = served);
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await served?.close();
    await ctx?.close();
  });

  describe.each([390, 1400])('at %i px', (width) => {
    let page: Page;
    const problems: string[] = [];

    beforeAll(async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
      page = await context.newPage();
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      page.on('response', (res) => {
        if (res.status() >= 400) problems.push(`${res.status()} ${res.request().method()} ${res.url()}`);
      });
    });
    afterAll(() => page?.context().close());

    /**
     * How far the page is wider than the screen (it fits when its scroll width is not more than the
     * screen's), and, when it is, the innermost elements that stick out, to say what to mend.
     */
    const overflowOf = () =>
      page.evaluate(() => {
        const g = globalThis as unknown as PageGlobals;
        const overflow = Math.max(0, g.document.documentElement.scrollWidth - g.innerWidth);
        const sticksOut = (element: PageElement) => element.getBoundingClientRect().right > g.innerWidth + 0.5;
        const culprits = Array.from(g.document.body.querySelectorAll('*'))
          .filter((element) => sticksOut(element) && !Array.from(element.children).some(sticksOut))
          .slice(0, 5)
          .map((element) => `${element.tagName.toLowerCase()}${typeof element.className === 'string' && element.className ? `.${element.className}` : ''}`);
        return { overflow, culprits: overflow > 0 ? culprits : [] };
      });
    const expectFits = async (name: string) => {
      await page.waitForLoadState('networkidle');
      if (SHOTS) await page.screenshot({ path: join(SHOTS, `width-${width}-${name}.png`), fullPage: true });
      expect({ page: name, ...(await overflowOf()) }).toEqual({ page: name, overflow: 0, culprits: [] });
    };
    /** Opens a page by its address's hash, and waits for what shows it is there (the console routes in the page). */
    const open = async (hash: string, ready: string) => {
      await page.goto(`${base}/console/#/${hash}`);
      await page.locator(ready).first().waitFor({ timeout: 10_000 });
    };
    const openLog = async (id: string) => {
      await page.goto(`${base}/console/#/logs/${id}`);
      await page.getByRole('heading', { name: `Request ${id.slice(0, 8)}` }).waitFor({ timeout: 10_000 });
      await page.locator('[data-sources] li').first().waitFor({ timeout: 10_000 });
    };

    it('fits the sign-in page, then signs in', async () => {
      await page.goto(`${base}/console/`);
      await page.getByLabel('API key').waitFor();
      await expectFits('sign-in');
      await page.getByLabel('API key').fill(owner.api_key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Spaces', exact: true }).waitFor();
    });

    it.each([
      ['spaces', 'spaces', 'table[data-spaces] tbody tr'],
      ['logs', 'logs', 'table[data-logs] tbody tr'],
      ['batches', 'batches', 'tr[data-batch]'],
      ['keys', 'keys', 'tr[data-key-id]'],
      ['costs', 'costs', 'table[data-totals] tbody tr'],
      ['prompts', 'prompts', 'article[data-prompt]'],
    ])('fits the %s page', async (name, hash, ready) => {
      await open(hash, ready);
      await expectFits(name);
    });

    it("fits a Space's page, whose many models cannot answer", async () => {
      await open(`spaces/${owner.app_id}`, 'tr[data-availability]');
      await expectFits('space');
    });

    it("fits a log's page, with its steps and sources", async () => {
      await openLog(seed.searchLogId);
      await expectFits('log');
    });

    it('lists the models that can answer first, and counts as on only those', async () => {
      await open(`spaces/${owner.app_id}`, 'tr[data-availability]');
      const rows = page.locator('tr[data-availability]');
      const states = await rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-availability')));
      expect(states.length).toBeGreaterThan(40);
      expect(states.slice(0, seed.usable.length)).toEqual(seed.usable.map(() => 'available'));
      expect(states.slice(seed.usable.length).every((state) => state === 'unavailable')).toBe(true);
      const first = await rows.evaluateAll(
        (all, count) => all.slice(0, count).map((row) => row.querySelector('input')?.getAttribute('data-model')),
        seed.usable.length,
      );
      expect([...first].sort()).toEqual([...seed.usable].sort());
      // Several catalog models are on by default, but their providers have no key: they are not counted.
      const header = page.locator('[data-models-on]');
      expect(await header.getAttribute('data-models-on')).toBe(String(seed.usable.length));
      expect(await header.innerText()).toContain(`${seed.usable.length} on`);
      if (SHOTS) {
        await header.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, `width-${width}-space-models.png`) });
      }
    });

    /** Waits until the models table shows `count` rows. */
    const showsRows = (count: number) =>
      page.waitForFunction(
        (expected) => (globalThis as unknown as PageGlobals).document.body.querySelectorAll('tr[data-availability]').length === expected,
        count,
      );

    it('filters the models by availability', async () => {
      const rows = page.locator('tr[data-availability]');
      const all = await rows.count();
      const filter = page.getByRole('group', { name: 'Show models' });
      await filter.getByRole('button', { name: /^Available/ }).click();
      await showsRows(seed.usable.length);
      expect(await rows.evaluateAll((list) => list.map((row) => row.getAttribute('data-availability')))).toEqual(seed.usable.map(() => 'available'));
      await filter.getByRole('button', { name: /^Unavailable/ }).click();
      await showsRows(all - seed.usable.length);
      expect(await page.locator('tr[data-availability="available"]').count()).toBe(0);
      await expectFits('space-unavailable');
      await filter.getByRole('button', { name: /^All/ }).click();
      await showsRows(all);
    });

    it("shows a web search as a plugin call with its own time, and the request's sources", async () => {
      await openLog(seed.searchLogId);
      const steps = page.locator('table[data-children] tbody tr');
      expect(await steps.count()).toBe(2);
      const plugin = steps.nth(0);
      expect(await plugin.getAttribute('data-step-kind')).toBe('plugin');
      expect(await plugin.locator('td').nth(0).innerText()).toBe('Plugin call');
      expect(await plugin.locator('td').nth(1).innerText()).toBe('web-search');
      expect(await plugin.locator('[data-latency]').innerText()).toBe(`${seed.searchLatencyMs} ms`);
      const model = steps.nth(1);
      expect(await model.getAttribute('data-step-kind')).toBe('model');
      expect(await model.locator('td').nth(0).innerText()).toBe('Model call');
      expect(await model.locator('td').nth(1).innerText()).toBe('test-echo');
      expect(await model.locator('[data-latency]').innerText()).toBe(`${seed.modelLatencyMs} ms`);
      // The request's latency is its model's: the page says so, with the search's time in the steps.
      expect(await page.locator('th:text-is("Latency") + td').innerText()).toContain(`${seed.modelLatencyMs} ms`);
      expect(await page.locator('th:text-is("Latency") + td').innerText()).toContain('model');

      const sources = page.locator('[data-sources] li');
      expect(await sources.count()).toBe(seed.sources.length);
      for (const [i, source] of seed.sources.entries()) {
        const item = sources.nth(i);
        expect(await item.locator('a').getAttribute('href')).toBe(source.url);
        expect(await item.locator('a').innerText()).toBe(source.title);
        expect(await item.innerText()).toContain(source.snippet);
      }
    });

    it('shows no source address or snippet of a request at privacy level 2', async () => {
      await openLog(seed.maskedSearchLogId);
      const sources = page.locator('[data-sources]');
      expect(await sources.locator('li').count()).toBe(seed.sources.length);
      expect(await sources.locator('a').count()).toBe(0);
      const text = await page.locator('main').innerText();
      expect(text).not.toContain('example.org');
      expect(text).not.toContain('Snippet');
      expect(text).not.toContain('tide tables');
      expect(await page.locator('table[data-children] tbody tr').first().getAttribute('data-step-kind')).toBe('plugin');
    });

    it('calls requests refused before routing so in the costs, not "unknown"', async () => {
      await open('costs', 'table[data-totals] tbody tr');
      const models = await page.locator('table[data-totals] tbody tr td:first-child').allInnerTexts();
      expect(models).toContain('refused before routing');
      expect(models).not.toContain('unknown');
    });

    it('met no page errors or failed calls', () => {
      expect(problems).toEqual([]);
    });
  });
});
