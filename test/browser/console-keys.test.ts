import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { buildConsole } from '../../scripts/build-console';
import { createOrgKey } from '../../src/services/tenancy/key-admin';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { describeWithBrowser, serveToBrowser, type BrowserServer } from '../helpers/browser-server';

/**
 * The console's Keys page and the Space page's rate limit, as a user works them in headless Chromium,
 * on a wide screen (1400 px) and a phone's (390 px): create a key (custom permissions, expiry, allowed
 * models), see and copy its secret once, rotate it, revoke it; each step checked through the API.
 */

jest.setTimeout(120_000);
/** A folder to save the page in (`npm run console:screenshots` sets docs/console), as console.test.ts does. */
const SHOTS = process.env.CONSOLE_SCREENSHOTS;

/** The few browser globals the page functions use (the test program is compiled without DOM types). */
interface PageGlobals {
  document: { querySelector(selector: string): { scrollWidth: number } | null; body: { innerText: string } };
  innerWidth: number;
  navigator: { clipboard: { readText(): Promise<string> } };
}

describeWithBrowser('the Keys page in a browser', () => {
  let ctx: TestContext;
  let owner: Tenant;
  /** An organization-wide owner key: the one signed in with. */
  let ownerKey: string;
  let served: BrowserServer | undefined;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    await buildConsole();
    ctx = createTestContext();
    owner = await ctx.tenant();
    ownerKey = (await createOrgKey(ctx.services.db, { orgId: owner.org_id, role: 'owner', name: 'console owner' })).api_key;
    served = await serveToBrowser(ctx.app);
    ({ base, browser } = served);
  });
  afterAll(async () => {
    await served?.close();
    await ctx?.close();
  });

  const status = async (key: string) =>
    (
      await request(ctx.app)
        .get('/v1/apps')
        .set({ Authorization: `Bearer ${key}` })
    ).status;

  async function signedIn(width: number): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('response', (res) => {
      if (res.status() >= 400) problems.push(`${res.status()} ${res.request().method()} ${res.url()}`);
    });
    // Rotating and revoking ask for a confirmation first.
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${base}/console`);
    await page.getByLabel('API key').fill(ownerKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Spaces', exact: true }).waitFor();
    return { page, problems };
  }

  /** Nothing on the page is wider than the screen (the table scrolls in its own box). */
  async function expectNoSidewaysScroll(page: Page): Promise<void> {
    const widths = await page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals;
      return { main: g.document.querySelector('main')?.scrollWidth ?? 0, screen: g.innerWidth };
    });
    expect(widths.main).toBeLessThanOrEqual(widths.screen);
  }

  it.each([1400, 390])('creates, copies, rotates and revokes a key (%i px wide)', async (width) => {
    const { page, problems } = await signedIn(width);
    if (width >= 1000) await page.getByRole('link', { name: 'Keys', exact: true }).click();
    else await page.goto(`${base}/console/#/keys`);
    await page.getByRole('heading', { name: 'Keys', exact: true }).waitFor();
    const name = `deploy-${width}`;

    const form = page.getByRole('form', { name: 'New key' });
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Role').selectOption('custom');
    await form.getByLabel('apps:read', { exact: true }).check();
    await form.getByLabel('Space').selectOption({ label: 'main' });
    await form.getByLabel('Expires in (days)').fill('1');
    await form.getByLabel('Allowed models').fill('gpt-4.1-mini, test-echo');
    await form.getByRole('button', { name: 'Create key' }).click();

    const panel = page.getByRole('article', { name: 'New secret' });
    await panel.waitFor();
    await expect(panel.getByRole('alert').innerText()).resolves.toContain('shown only once');
    const secret = await panel.locator('[data-secret]').innerText();
    expect(secret).toMatch(/^sy-[A-Za-z0-9_-]{43}$/);
    await panel.getByRole('button', { name: 'Copy' }).click();
    await panel.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).navigator.clipboard.readText())).toBe(secret);
    expect(await status(secret)).toBe(200);

    const listed = await request(ctx.app)
      .get('/v1/keys?limit=100')
      .set({ Authorization: `Bearer ${ownerKey}` });
    const created = (listed.body.data as { id: string; name: string }[]).find((k) => k.name === name);
    expect(created).toMatchObject({
      role: 'custom',
      permissions: ['apps:read'],
      app_id: owner.app_id,
      allowed_models: ['gpt-4.1-mini', 'test-echo'],
      expires_at: expect.any(Number),
    });
    const row = page.locator(`tr[data-key-id="${created?.id}"]`);
    await row.getByText('custom', { exact: true }).waitFor();
    await row.getByText(`sy-...${secret.slice(-4)}`).waitFor();
    await expectNoSidewaysScroll(page);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `keys-${width}.png`), fullPage: true });

    await panel.getByRole('button', { name: 'Done, I stored it' }).click();
    await panel.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.body.innerText)).not.toContain(secret);

    await row.getByRole('button', { name: `Rotate ${name}` }).click();
    await panel.waitFor();
    const rotated = await panel.locator('[data-secret]').innerText();
    expect(rotated).not.toBe(secret);
    expect(await status(secret)).toBe(401);
    expect(await status(rotated)).toBe(200);
    await panel.getByRole('button', { name: 'Done, I stored it' }).click();

    await row.getByRole('button', { name: `Revoke ${name}` }).click();
    await row.waitFor({ state: 'detached' });
    expect(await status(rotated)).toBe(401);
    await page.getByLabel('Show revoked keys').check();
    await row.getByText('revoked', { exact: true }).waitFor();
    await expectNoSidewaysScroll(page);
    // The only refusals: the old secrets, asked by this test through the API, not the page.
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("edits a Space's rate limit on its page, and clears it", async () => {
    const { page, problems } = await signedIn(1400);
    await page.goto(`${base}/console/#/spaces/${owner.app_id}`);
    const policies = page.getByRole('form', { name: 'Policies' });
    const field = policies.getByLabel('Rate limit (requests per minute)');
    await field.fill('5');
    const saved = page.waitForResponse((res) => res.url().endsWith('/v1/apps/update'));
    await policies.getByRole('button', { name: 'Save policies' }).click();
    expect((await saved).status()).toBe(200);
    const space = async () =>
      (
        await request(ctx.app)
          .get(`/v1/apps/${owner.app_id}`)
          .set({ Authorization: `Bearer ${ownerKey}` })
      ).body.app.rate_limit as number;
    expect(await space()).toBe(5);
    await page.waitForFunction(
      () =>
        (globalThis as unknown as { document: { querySelector(s: string): { value: string } | null } }).document.querySelector('input[name="rate_limit"]')
          ?.value === '5',
    );

    await field.fill('');
    const cleared = page.waitForResponse((res) => res.url().endsWith('/v1/apps/update'));
    await policies.getByRole('button', { name: 'Save policies' }).click();
    expect((await cleared).status()).toBe(200);
    expect(await space()).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
