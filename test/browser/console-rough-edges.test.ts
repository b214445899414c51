import type { Browser, Page } from 'playwright-core';
import { buildConsole } from '../../scripts/build-console';
import type { Model, Prisma } from '../../src/generated/prisma/client';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { describeWithBrowser, serveToBrowser, type BrowserServer } from '../helpers/browser-server';

/**
 * Rough edges of the console a newcomer met, in headless Chromium on a wide screen (1400 px) and a
 * phone's (390 px): the sign-in placeholder shows the keys' `sy-` prefix; a log links its Space by name;
 * a request that named its model says so instead of showing a router's choice; the nav fits the screen
 * whatever the number of its entries; a cancelled request shows no negative latency.
 */

jest.setTimeout(120_000);

/** The few browser globals the page functions use (the test program is compiled without DOM types). */
interface Box {
  left: number;
  right: number;
}
interface PageElement {
  scrollWidth: number;
  getBoundingClientRect(): Box;
  appendChild(child: PageElement): void;
  cloneNode(deep: boolean): PageElement;
  textContent: string | null;
  querySelector(selector: string): PageElement | null;
}
interface PageGlobals {
  document: {
    querySelector(selector: string): PageElement | null;
    querySelectorAll(selector: string): ArrayLike<PageElement>;
    documentElement: { scrollWidth: number };
  };
  innerWidth: number;
}

interface Seeded {
  namedRanked: string;
  namedAlone: string;
  routed: string;
  cancelled: string;
}

function scores(best: string[], candidates: Model[]) {
  return {
    best_models: best,
    candidates: candidates.map((m, i) => ({
      model: m.model,
      provider: m.provider,
      score: 0.9 - i * 0.2,
      quality: 0.8,
      offline_quality: 0.8,
      cost: 0.0001,
      latency: 400,
    })),
    router: { version: 'v3', kind: 'chat', smart_learn: false, explored: false },
  };
}

async function seed(ctx: TestContext, owner: Tenant): Promise<Seeded & { mini: Model; other: Model }> {
  const db = ctx.services.db;
  const mini = await db.model.findFirstOrThrow({ where: { model: 'gpt-4o-mini', app_id: null, org_id: null } });
  const other = await db.model.findFirstOrThrow({ where: { model: { not: 'gpt-4o-mini' }, provider: { not: mini.provider }, app_id: null, org_id: null } });
  const log = async (data: Partial<Prisma.LogUncheckedCreateInput>) =>
    (
      await db.log.create({
        data: {
          org_id: owner.org_id,
          app_id: owner.app_id,
          timestamp: BigInt(Date.now()),
          status_code: 200,
          latency: 300,
          prompt: 'Hi',
          response_text: 'Hello',
          ...data,
        },
      })
    ).id;
  const answer = (metadata: object) => ({ id: 'chatcmpl-x', object: 'chat.completion', model: mini.model, created: 1, choices: [], metadata });
  return {
    mini,
    other,
    // Named, and ranked (for a failover): both models are among the router's best.
    namedRanked: await log({
      model_id: mini.id,
      payload: { model: mini.model, messages: [] },
      response: answer({ scores: scores([mini.model, other.model], [mini, other]) }),
    }),
    // Named and answered at once: no ranking was made.
    namedAlone: await log({ model_id: mini.id, payload: { model: mini.model, messages: [] }, response: answer({ scores: scores([], []) }) }),
    routed: await log({ model_id: mini.id, payload: { messages: [] }, response: answer({ scores: scores([mini.model, other.model], [mini, other]) }) }),
    cancelled: await log({ status_code: 499, latency: -1, payload: { messages: [] } }),
  };
}

describeWithBrowser('rough edges of the console', () => {
  let ctx: TestContext;
  let owner: Tenant;
  let seeded: Seeded & { mini: Model; other: Model };
  let served: BrowserServer | undefined;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    await buildConsole();
    ctx = createTestContext();
    owner = await ctx.tenant();
    seeded = await seed(ctx, owner);
    served = await serveToBrowser(ctx.app);
    ({ base, browser } = served);
  });
  afterAll(async () => {
    await served?.close();
    await ctx?.close();
  });

  /** Whether every nav entry lies inside the screen and the nav does not scroll sideways. */
  const navFits = (page: Page) =>
    page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals;
      const entries = Array.from(g.document.querySelectorAll('header nav li'));
      const outside = entries.filter((entry) => {
        const box = entry.getBoundingClientRect();
        return box.left < 0 || box.right > g.innerWidth;
      });
      const nav = g.document.querySelector('header nav');
      return { entries: entries.length, outside: outside.map((entry) => entry.textContent), scrolls: (nav?.scrollWidth ?? 0) > g.innerWidth };
    });

  describe.each([1400, 390])('at %i px', (width) => {
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

    /** Opens a log's page and waits until it shows that log (the console routes by the address's hash). */
    const openLog = async (id: string) => {
      await page.goto(`${base}/console/#/logs/${id}`);
      await page.getByRole('heading', { name: `Request ${id.slice(0, 8)}` }).waitFor();
    };

    it("shows the keys' sy- prefix as the sign-in placeholder, and signs in", async () => {
      await page.goto(`${base}/console/`);
      const key = page.getByLabel('API key');
      expect(await key.getAttribute('placeholder')).toBe('sy-…');
      expect(owner.api_key.startsWith('sy-')).toBe(true);
      await key.fill(owner.api_key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Spaces', exact: true }).waitFor();
    });

    it('fits the nav on the screen, however many entries it has', async () => {
      expect(await navFits(page)).toMatchObject({ outside: [], scrolls: false });
      // Entries other pages add (Keys, and more): copies of the last link, appended to the nav.
      await page.evaluate(() => {
        const g = globalThis as unknown as PageGlobals;
        const list = g.document.querySelector('header nav ul:last-child');
        const model = g.document.querySelector('header nav ul:last-child li');
        for (const name of ['Keys', 'Usage limits', 'Webhooks', 'Organization']) {
          const entry = model?.cloneNode(true);
          if (!entry || !list) continue;
          entry.textContent = name;
          list.appendChild(entry);
        }
      });
      const fit = await navFits(page);
      expect(fit.entries).toBeGreaterThanOrEqual(10);
      expect(fit).toMatchObject({ outside: [], scrolls: false });
      if (process.env.CONSOLE_SCREENSHOTS) await page.screenshot({ path: `${process.env.CONSOLE_SCREENSHOTS}/nav-${width}.png` });
      await page.reload();
    });

    it("links a log's Space by the Space's name", async () => {
      await openLog(seeded.routed);
      const link = page.locator('[data-space-link]');
      await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelector('[data-space-link]')?.textContent === 'main');
      expect(await link.innerText()).toBe('main');
      expect(await link.getAttribute('href')).toBe(`#/spaces/${owner.app_id}`);
    });

    it('says a request named its model, and marks that model alone in a ranking made for failover', async () => {
      await openLog(seeded.namedRanked);
      const note = page.locator('[data-named-model]');
      await note.waitFor();
      expect(await note.getAttribute('data-named-model')).toBe(seeded.mini.model);
      expect(await note.innerText()).toContain('named its model');
      expect(await page.locator('[data-explanation] tbody strong').allInnerTexts()).toEqual([seeded.mini.model]);
      expect(await page.locator(`[data-candidate="${seeded.mini.model}"] .badge`).innerText()).toBe('named');

      await openLog(seeded.namedAlone);
      await page.locator('[data-named-model]').waitFor();
      expect(await page.locator('[data-named-model]').innerText()).toContain('no ranking was made');
      expect(await page.locator('[data-explanation]').count()).toBe(0);
    });

    it("still marks the router's best models of an automatic choice", async () => {
      await openLog(seeded.routed);
      await page.locator('[data-explanation]').waitFor();
      expect(await page.locator('[data-named-model]').count()).toBe(0);
      expect(await page.locator('[data-explanation] tbody strong').allInnerTexts()).toEqual([seeded.mini.model, seeded.other.model]);
    });

    it('shows no negative latency for a cancelled request', async () => {
      await openLog(seeded.cancelled);
      const latency = page.locator('th:text-is("Latency") + td');
      await latency.waitFor();
      expect(await latency.innerText()).toBe('—');
      expect(await page.locator('main').innerText()).not.toMatch(/-\d+\s*ms/);
    });

    it('met no page errors or failed calls', () => {
      expect(problems).toEqual([]);
    });
  });
});
