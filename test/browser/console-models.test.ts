import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { buildConsole } from '../../scripts/build-console';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { describeWithBrowser, serveToBrowser, type BrowserServer } from '../helpers/browser-server';

/**
 * The console's model table of a Space, in headless Chromium on a wide screen (1400 px) and a phone's
 * (390 px): each model's price (USD per 1M tokens, in and out) and whether it can answer, with the
 * reason when it cannot. The service has OpenAI's key and not Anthropic's.
 */

const SHOTS = process.env.CONSOLE_SCREENSHOTS;
jest.setTimeout(120_000);

interface PageGlobals {
  document: { documentElement: { scrollWidth: number } };
  innerWidth: number;
}

/** Every provider without a key but OpenAI. */
function openAiOnly(): Config['providers'] {
  const providers = loadConfig().providers;
  const keyless = Object.fromEntries(Object.entries(providers).map(([id, settings]) => [id, { baseUrl: settings.baseUrl }])) as Config['providers'];
  return { ...keyless, openai: { ...keyless.openai, apiKey: 'sk-test' } };
}

describeWithBrowser("a Space's model table in the console", () => {
  let ctx: TestContext;
  let owner: Tenant;
  let served: BrowserServer | undefined;
  let base: string;
  let browser: Browser;
  let mini: { id: string; prompt: string; completion: string };

  beforeAll(async () => {
    await buildConsole();
    ctx = createTestContext({ providers: openAiOnly() });
    owner = await ctx.tenant();
    const listing = await request(ctx.app).get(`/v1/apps/${owner.app_id}/models`).set(owner.auth).expect(200);
    const rows = listing.body.base_model_settings as { id: string; model: string; parent: { prompt_token_cost: number; completion_token_cost: number } }[];
    const row = (name: string) => rows.find((r) => r.model === name);
    const found = row('gpt-4.1-mini');
    const haiku = row('claude-haiku-4-5');
    if (!found || !haiku) throw new Error('the catalog lacks gpt-4.1-mini or claude-haiku-4-5');
    const dollars = (perToken: number) => `$${(perToken * 1e6).toFixed(2)}`;
    mini = { id: found.id, prompt: dollars(found.parent.prompt_token_cost), completion: dollars(found.parent.completion_token_cost) };
    for (const id of [found.id, haiku.id])
      await request(ctx.app).put(`/v1/apps/${owner.app_id}/models/${id}`).set(owner.auth).send({ active: true }).expect(200);
    served = await serveToBrowser(ctx.app);
    ({ base, browser } = served);
  });
  afterAll(async () => {
    await served?.close();
    await ctx?.close();
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
      await page.goto(`${base}/console/`);
      await page.getByLabel('API key').fill(owner.api_key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Spaces', exact: true }).waitFor();
      await page.goto(`${base}/console/#/spaces/${owner.app_id}`);
      await page.getByRole('columnheader', { name: 'Availability' }).waitFor();
    });
    afterAll(() => page?.context().close());

    const rowOf = (name: string) => page.locator('tr', { has: page.locator(`input[data-model="${name}"]`) });

    it('shows a price column: USD per 1M tokens, in and out', async () => {
      await page.getByRole('columnheader', { name: 'Price per 1M (in / out)' }).waitFor();
      const price = rowOf('gpt-4.1-mini').locator('[data-price]');
      await price.scrollIntoViewIfNeeded();
      expect(await price.isVisible()).toBe(true);
      expect((await price.textContent())?.replace(/\s+/g, ' ').trim()).toBe(`${mini.prompt} / ${mini.completion}`);
    });

    it('marks a model without its provider key unavailable, with the reason; an available one as available', async () => {
      const haiku = rowOf('claude-haiku-4-5').locator('[data-unavailable="provider_key_missing"]');
      await haiku.scrollIntoViewIfNeeded();
      expect(await haiku.isVisible()).toBe(true);
      expect((await haiku.textContent())?.replace(/\s+/g, ' ').trim()).toBe('unavailable ANTHROPIC_API_KEY is not set');
      expect(await rowOf('gpt-4.1-mini').getByText('available', { exact: true }).isVisible()).toBe(true);
      // Off in the Space: the reason says so.
      expect(await rowOf('gpt-4.1-nano').locator('[data-unavailable="not_active_in_space"]').textContent()).toContain('not switched on in this Space');
    });

    it('keeps the page from scrolling sideways (the table scrolls in its own box), with no failed call', async () => {
      const { scrollWidth, innerWidth } = await page.evaluate(() => {
        const g = globalThis as unknown as PageGlobals;
        return { scrollWidth: g.document.documentElement.scrollWidth, innerWidth: g.innerWidth };
      });
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      expect(problems).toEqual([]);
      if (SHOTS) {
        mkdirSync(SHOTS, { recursive: true });
        await rowOf('claude-haiku-4-5').scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, `space-models-${width}.png`) });
      }
    });
  });
});
