import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { buildConsole } from '../../scripts/build-console';
import { CONSOLE_CSP } from '../../src/http/console';
import { testBatchConfig } from '../helpers/batch-config';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { describeWithBrowser, serveToBrowser, type BrowserServer } from '../helpers/browser-server';
import { HOSTILE_PROMPT, seedConsole, type ConsoleSeed } from './console-seed';

/**
 * The web console as a user opens it: headless Chromium (Debian's `chromium`) signs in with an API key,
 * and each page loads and does its main job through the public API. With CONSOLE_SCREENSHOTS set to a
 * folder (`npm run console:screenshots` sets docs/console), each page is also saved there as a PNG.
 */

const SHOTS = process.env.CONSOLE_SCREENSHOTS;

/** The few browser globals the page functions use (the test program is compiled without DOM types). */
interface PageElement {
  checked?: boolean;
  width: number;
  height: number;
  getAttribute(name: string): string | null;
  getContext(kind: '2d'): { getImageData(x: number, y: number, width: number, height: number): { data: ArrayLike<number> } } | null;
}
interface PageGlobals {
  document: { querySelector(selector: string): PageElement | null; querySelectorAll(selector: string): ArrayLike<PageElement>; cookie: string };
  sessionStorage: { getItem(key: string): string | null };
  localStorage: { length: number };
  __xss?: number;
}

describeWithBrowser('the web console in a browser', () => {
  let ctx: TestContext;
  let owner: Tenant;
  let stranger: Tenant;
  let seed: ConsoleSeed;
  let served: BrowserServer | undefined;
  let base: string;
  let browser: Browser;
  let page: Page;
  /** Page errors, failed calls to our server and CSP reports: none is expected. */
  const problems: string[] = [];
  /** Refusals a test provokes on purpose (`400 PUT <url>`), each allowed once. */
  const provoked = new Set<string>();

  beforeAll(async () => {
    await buildConsole();
    ctx = createTestContext({ batches: testBatchConfig() });
    [owner, stranger] = await Promise.all([ctx.tenant({ serviceOwner: true }), ctx.tenant()]);
    seed = await seedConsole(ctx, ctx.app, owner);
    // Another organization's log, which the console must never show.
    await ctx.services.db.log.create({
      data: { org_id: stranger.org_id, app_id: stranger.app_id, timestamp: BigInt(Date.now()), prompt: 'stranger secret', total_tokens_cost: 5 },
    });
    served = await serveToBrowser(ctx.app);
    ({ base, browser } = served);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
    page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('response', (res) => {
      // The one refusal expected: the wrong key tried at sign-in.
      const refusedKey = res.status() === 401 && res.request().headers().authorization === 'Bearer sk-wrong-key';
      const call = `${res.status()} ${res.request().method()} ${res.url()}`;
      if (res.status() >= 400 && !refusedKey && !provoked.delete(call)) problems.push(call);
    });
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
    });
    page.on('requestfailed', (req) => problems.push(`failed ${req.url()}`));
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await served?.close();
    await ctx?.close();
  });

  async function shoot(name: string): Promise<void> {
    if (!SHOTS) return;
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }

  const heading = (name: string) => page.getByRole('heading', { name, exact: true });

  it('refuses a wrong key, signs in with a right one kept in sessionStorage, never in the address', async () => {
    const res = await page.goto(`${base}/console`);
    expect(res?.headers()['content-security-policy']).toBe(CONSOLE_CSP);
    expect(page.url()).toBe(`${base}/console/`);
    await page.getByLabel('API key').fill('sk-wrong-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await shoot('sign-in');
    await page.getByLabel('API key').fill(owner.api_key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Spaces').waitFor();
    expect(page.url()).not.toContain(owner.api_key);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.getItem('switchyard.api_key'))).toBe(owner.api_key);
    expect(
      await page.evaluate(() => {
        const g = globalThis as unknown as PageGlobals;
        return g.localStorage.length + g.document.cookie.length;
      }),
    ).toBe(0);
    await page.getByRole('link', { name: 'main', exact: true }).waitFor();
    await shoot('spaces');
  });

  it("shows a Space's weights, policies, models and sandbox; saves weights, switches a model off and syncs the sandbox", async () => {
    await page.getByRole('link', { name: 'main', exact: true }).click();
    await heading('main').waitFor();
    await page.getByText('Router weights').waitFor();
    await page.getByRole('spinbutton', { name: 'Cost', exact: true }).fill('0.7');
    const weighed = page.waitForResponse((res) => res.url().endsWith('/v1/apps/update'));
    await page.getByRole('button', { name: 'Save weights' }).click();
    expect((await weighed).status()).toBe(200);
    const space = await request(ctx.app).get(`/v1/apps/${owner.app_id}`).set(owner.auth);
    expect(space.body.app.weights.cost).toBe(0.7);

    const toggle = page.getByLabel(`${seed.mini.model} (${seed.mini.provider}) on`);
    const wasOn = await toggle.isChecked();
    const saved = page.waitForResponse((res) => res.request().method() === 'PUT' && res.url().includes(`/models/${seed.mini.id}`));
    await toggle.click();
    expect((await saved).status()).toBe(200);
    await page.waitForFunction(([label, on]) => (globalThis as unknown as PageGlobals).document.querySelector(`input[aria-label="${label}"]`)?.checked === on, [
      `${seed.mini.model} (${seed.mini.provider}) on`,
      !wasOn,
    ] as const);
    const models = await request(ctx.app).get(`/v1/apps/${owner.app_id}/models`).set(owner.auth);
    const state = (models.body.base_model_settings as { id: string; active: boolean }[]).find((model) => model.id === seed.mini.id);
    expect(state?.active).toBe(!wasOn);
    // Back on, so the other pages see the Space as it was.
    await toggle.click();
    await page.waitForFunction(([label, on]) => (globalThis as unknown as PageGlobals).document.querySelector(`input[aria-label="${label}"]`)?.checked === on, [
      `${seed.mini.model} (${seed.mini.provider}) on`,
      wasOn,
    ] as const);

    await page.getByRole('button', { name: 'Create sandbox' }).click();
    await page.locator('[data-sandbox-status="syncing"]').waitFor();
  });

  it("edits a Space's policies and failover chain, and shows the API's words when it refuses a value", async () => {
    const readSpace = async () =>
      (await request(ctx.app).get(`/v1/apps/${owner.app_id}`).set(owner.auth)).body as {
        app: { has_failover_chain: boolean; policies: Record<string, unknown> };
      };
    const before = await readSpace();
    expect(before.app.policies.privacy_level).toBe(1);
    // The chain takes only models on in the Space: make sure both are, then show the page afresh.
    for (const model of [seed.mini, seed.other])
      await request(ctx.app).put(`/v1/apps/${owner.app_id}/models/${model.id}`).set(owner.auth).send({ active: true }).expect(200);
    await page.reload();
    const policies = page.locator('form[aria-label="Policies"]');
    await policies.waitFor();

    await policies.locator('[name="privacy_level"]').selectOption('2');
    await policies.getByLabel('Retries, other model').fill('4');
    await policies.getByRole('switch', { name: 'Use the failover chain' }).check();
    const saved = page.waitForResponse((res) => res.url().endsWith('/v1/apps/update'));
    // After a save the page reads the Space again; the next edit is made against what that read returns.
    const reread = page.waitForResponse((res) => res.request().method() === 'GET' && res.url().endsWith(`/v1/apps/${owner.app_id}`));
    await policies.getByRole('button', { name: 'Save policies' }).click();
    const response = await saved;
    expect(response.status()).toBe(200);
    await reread;
    // Only what changed is sent.
    expect(response.request().postDataJSON()).toEqual({
      id: owner.app_id,
      policies: { privacy_level: 2, max_switch_model_retries: 4 },
      has_failover_chain: true,
    });
    const after = await readSpace();
    expect(after.app.policies).toMatchObject({
      privacy_level: 2,
      max_switch_model_retries: 4,
      max_same_model_retries: before.app.policies.max_same_model_retries,
      max_cost: before.app.policies.max_cost,
    });
    expect(after.app.has_failover_chain).toBe(true);

    // 0 passes the browser's check (min 0) but the API wants a positive cost: its message is shown.
    await policies.getByLabel('Max cost per request (USD)').fill('0');
    const refusedUrl = `${base}/v1/apps/update`;
    provoked.add(`400 PUT ${refusedUrl}`);
    const refused = page.waitForResponse((res) => res.url() === refusedUrl);
    await policies.getByRole('button', { name: 'Save policies' }).click();
    const refusedResponse = await refused;
    const refusal = (await refusedResponse.json()) as { error: { message: string; param: string } };
    expect([refusedResponse.status(), refusedResponse.request().postDataJSON()]).toEqual([400, { id: owner.app_id, policies: { max_cost: 0 } }]);
    expect(refusal.error.param).toBe('policies.max_cost');
    await expect(policies.getByRole('alert').innerText()).resolves.toBe(`${refusal.error.message} (policies.max_cost)`);
    expect((await readSpace()).app.policies.max_cost).toBe(before.app.policies.max_cost);
    await policies.getByLabel('Max cost per request (USD)').fill('');

    const chain = page.locator('article', { has: page.locator('header', { hasText: 'Failover chain' }) });
    const pick = chain.getByLabel('Model to add to the chain');
    for (const model of [seed.other, seed.mini]) {
      await pick.selectOption(model.id);
      await chain.getByRole('button', { name: 'Add to chain' }).click();
    }
    const shown = () => chain.locator('[data-failover] li').evaluateAll((items) => items.map((item) => item.getAttribute('data-model-id')));
    expect(await shown()).toEqual([seed.other.id, seed.mini.id]);
    await chain.getByRole('button', { name: `Move ${seed.mini.model} (${seed.mini.provider}) up` }).click();
    expect(await shown()).toEqual([seed.mini.id, seed.other.id]);
    const stored = page.waitForResponse((res) => res.url().endsWith(`/v1/apps/${owner.app_id}/failover`));
    await chain.getByRole('button', { name: 'Save chain' }).click();
    expect((await stored).status()).toBe(200);
    const models = await request(ctx.app).get(`/v1/apps/${owner.app_id}/models`).set(owner.auth);
    expect((models.body.failover_models as { id: string }[]).map((model) => model.id)).toEqual([seed.mini.id, seed.other.id]);
    // Saved: nothing left to save, and the page shows the stored order.
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelector('[data-save-chain]')?.getAttribute('disabled') !== null);
    expect(await shown()).toEqual([seed.mini.id, seed.other.id]);
    await shoot('space');
  });

  it('lists logs and filters them by model, status, date range and rating', async () => {
    await page.getByRole('link', { name: 'Logs' }).click();
    await heading('Logs').waitFor();
    const rows = page.locator('table[data-logs] tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(4);
    await expect(page.locator('body').innerText()).resolves.not.toContain('stranger secret');
    // Markup in a prompt is shown as text, never run.
    await page.getByText(HOSTILE_PROMPT.slice(0, 60)).first().waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__xss)).toBeUndefined();
    await shoot('logs');

    const filter = async (fields: Record<string, string>, expected: string[]) => {
      for (const [name, value] of Object.entries(fields)) {
        const field = page.locator(`form[aria-label="Log filters"] [name="${name}"]`);
        if ((await field.evaluate((element) => element.tagName)) === 'SELECT') await field.selectOption(value);
        else await field.fill(value);
      }
      const answered = page.waitForResponse((res) => res.url().includes('/v1/logs?'));
      await page.getByRole('button', { name: 'Filter' }).click();
      const response = await answered;
      expect(response.status()).toBe(200);
      await page
        .waitForFunction(
          (ids) =>
            Array.from((globalThis as unknown as PageGlobals).document.querySelectorAll('table[data-logs] tbody tr'))
              .map((row) => row.getAttribute('data-log-id'))
              .join() === ids.join(),
          expected,
          { timeout: 5000 },
        )
        .catch(async (err: unknown) => {
          throw new Error(`${String(err)}\nasked ${response.url()}\nthe page showed: ${await page.locator('table[data-logs]').innerText()}`);
        });
    };
    await filter({ model: seed.other.model }, [seed.maskedLogId, seed.failedLogId]);
    await filter({ model: '', status: 'failed' }, [seed.failedLogId]);
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    await filter({ status: '', from: day(2), to: day(2) }, [seed.failedLogId]);
    await filter({ from: '', to: '', app_id: owner.app_id }, [seed.maskedLogId, seed.hostileLogId, seed.failedLogId, seed.routedLogId]);
  });

  it("opens a log with its sub-request and the router's explanation, and rates the answer", async () => {
    await page.locator(`tr[data-log-id="${seed.routedLogId}"] a`).click();
    await page.getByRole('heading', { name: "Router's explanation" }).waitFor();
    await page.locator(`[data-candidate="${seed.other.model}"]`).waitFor();
    expect(await page.locator('[data-explanation] tbody tr').count()).toBe(2);
    expect(await page.locator('[data-explanation]').innerText()).toContain('0.9120');
    expect(await page.locator('table[data-children] tbody tr').count()).toBe(1);

    const rated = page.waitForResponse((res) => res.url().endsWith(`/v1/logs/${seed.routedLogId}/rating`));
    await page.getByRole('button', { name: 'Good answer' }).click();
    expect((await rated).status()).toBe(200);
    await page.locator('.badge.good').waitFor();
    const stored = await request(ctx.app).get(`/v1/logs/${seed.routedLogId}`).set(owner.auth);
    expect(stored.body.good_answer).toBe(true);
    await shoot('log');

    await page.getByRole('link', { name: '← Logs' }).click();
    await page.locator('form[aria-label="Log filters"] [name="good_answer"]').selectOption('true');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(
      (id) =>
        Array.from((globalThis as unknown as PageGlobals).document.querySelectorAll('table[data-logs] tbody tr'))
          .map((row) => row.getAttribute('data-log-id'))
          .join() === id,
      seed.routedLogId,
    );
  });

  it('shows a privacy level 2 log exactly as the API does', async () => {
    await page.goto(`${base}/console/#/logs/${seed.maskedLogId}`);
    await page.locator('[data-text="Prompt"]').waitFor();
    const api = await request(ctx.app).get(`/v1/logs/${seed.maskedLogId}`).set(owner.auth);
    expect(await page.locator('[data-text="Prompt"]').innerText()).toBe(api.body.prompt);
    expect(await page.locator('[data-text="Answer"]').innerText()).toBe(api.body.response_text);
  });

  it('draws cost and savings over time, per model and per Space', async () => {
    await page.getByRole('link', { name: 'Cost & savings' }).click();
    await heading('Cost & savings').waitFor();
    for (const label of ['Cost and savings per day', 'Cost per day by model', 'Cost per day by Space']) {
      const canvas = page.locator(`canvas[data-chart="${label}"]`);
      await canvas.waitFor();
      // A drawn chart has coloured pixels; a blank canvas has none.
      await page.waitForFunction((name) => {
        const element = (globalThis as unknown as PageGlobals).document.querySelector(`canvas[data-chart="${name}"]`);
        const context = element?.getContext('2d');
        if (!element || !context || element.width === 0) return false;
        const pixels = context.getImageData(0, 0, element.width, element.height).data;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) return true;
        return false;
      }, label);
    }
    const totals = await page.locator('table[data-totals]').innerText();
    expect(totals).toContain(seed.mini.model);
    expect(totals).toContain(seed.other.model);
    await shoot('costs');
  });

  it('shows the prompt review queue and approves a prompt', async () => {
    await page.getByRole('link', { name: 'Prompt review' }).click();
    await heading('Prompt review').waitFor();
    const card = page.locator(`article[data-prompt="${seed.promptTitle}"]`);
    await card.waitFor();
    await shoot('prompts');
    const approved = page.waitForResponse((res) => res.url().includes('/approve'));
    await card.getByRole('button', { name: 'Approve' }).click();
    expect((await approved).status()).toBe(200);
    await page.getByText('No pending prompts.').waitFor();
  });

  it('lists batches with their progress', async () => {
    await page.getByRole('link', { name: 'Batches' }).click();
    await heading('Batches').waitFor();
    const row = page.locator(`tr[data-batch="${seed.batchId}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('1 completed · 0 failed · 2 total');
    expect(await row.locator('progress').getAttribute('value')).toBe('1');
    expect(await row.locator('progress').getAttribute('max')).toBe('2');
    await shoot('batches');
  });

  it('ran without page errors, failed calls or CSP violations', () => {
    expect(problems).toEqual([]);
  });
});
