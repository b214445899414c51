import type { Browser, BrowserContext } from 'playwright-core';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { describeWithBrowser, serveToBrowser, type BrowserServer } from '../helpers/browser-server';

/**
 * bull-board as an operator opens it: headless Chromium (Debian's `chromium`, which `.ci/run` installs)
 * signs in with HTTP Basic (any user name, a service owner's key as the password), either answering the
 * browser's prompt or with the credentials in the address, and must show the dashboard's real labels
 * (not its translation keys) and our queues, never staying on "Loading".
 */

const QUEUES = ['completions', 'sandbox-sync', 'prompt-review', 'space-files'];

describeWithBrowser('bull-board in a browser', () => {
  let ctx: TestContext;
  let owner: Tenant;
  let served: BrowserServer | undefined;
  let host: string;
  let browser: Browser;

  beforeAll(async () => {
    ctx = createTestContext();
    owner = await ctx.tenant({ serviceOwner: true });
    served = await serveToBrowser(ctx.app);
    ({ host, browser } = served);
  });
  afterAll(async () => {
    await served?.close();
    await ctx?.close();
  });

  /** Opens the dashboard and waits for its queue cards; what the page shows, and the failed calls. */
  async function open(context: BrowserContext, url: string): Promise<{ text: string; failed: string[]; address: string }> {
    const page = await context.newPage();
    const failed: string[] = [];
    // Our own calls only: the page also asks fonts.googleapis.com for its fonts, unreachable here.
    const ours = (url: string) => url.includes(host);
    page.on('response', (res) => {
      if (res.status() >= 400 && ours(res.url())) failed.push(`${res.status()} ${res.url()}`);
    });
    page.on('requestfailed', (req) => {
      if (ours(req.url())) failed.push(`failed ${req.url()}`);
    });
    // What a page loaded before its own reload left unfinished does not count.
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) failed.length = 0;
    });
    await page.goto(url);
    // A queue's name shows twice once the dashboard has its data: in the menu, and on the queue's card.
    await page
      .getByText('sandbox-sync', { exact: true })
      .nth(1)
      .waitFor({ timeout: 20_000 })
      .catch(async (err: unknown) => {
        throw new Error(`${String(err)}\nthe page showed: ${(await page.locator('body').innerText()).slice(0, 1200)}\nfailed: ${failed.join(', ')}`);
      });
    return { text: await page.locator('body').innerText(), failed, address: page.url() };
  }

  function expectDashboard({ text, failed }: { text: string; failed: string[] }, labels: string[]): void {
    expect(text).not.toMatch(/MENU\.|JOB\.|QUEUE\.|DASHBOARD\./);
    for (const label of labels) expect(text).toContain(label);
    for (const queue of QUEUES) expect(text).toContain(queue);
    expect(failed).toEqual([]);
  }

  it.each([
    ['en-US', ['QUEUES', 'ACTIVE', 'WAITING', 'COMPLETED', 'FAILED']],
    ['de-DE', ['WARTESCHLANGEN']],
    // A language bull-board has no labels for: its English ones.
    ['fr-CA', ['QUEUES', 'ACTIVE']],
  ])("answers the browser's Basic prompt, and shows its labels and our queues (%s)", async (locale, labels) => {
    const context = await browser.newContext({ locale, httpCredentials: { username: 'operator', password: owner.api_key } });
    expectDashboard(await open(context, `http://${host}/admin/queues`), labels);
    await context.close();
  });

  it('opened with the credentials in the address, reloads once without them and works', async () => {
    const context = await browser.newContext();
    const shown = await open(context, `http://operator:${owner.api_key}@${host}/admin/queues`);
    expectDashboard(shown, ['QUEUES', 'ACTIVE']);
    expect(shown.address).toBe(`http://${host}/admin/queues`);
    await context.close();
  });
});
