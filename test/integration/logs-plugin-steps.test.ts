import request from 'supertest';
import { MASK } from '../../src/pipeline/privacy';
import { complete, logsOf, userMessage } from '../helpers/completion-fixtures';
import { pluginSpace, usePluginHarness } from '../helpers/plugin-harness';
import type { Tenant } from '../helpers/test-context';

/**
 * What `GET /v1/logs/{id}?include=children` shows of a completion whose web search ran before its model
 * call: each step's kind (`step`), its own latency, and the request's sources in its response's
 * `metadata.search_results`, masked at privacy level 2 like the rest of its content.
 */
const env = usePluginHarness();
const SEARCH_DELAY_MS = 40;

interface StepView {
  id: string;
  step: { kind: string; plugin: string | null } | null;
  latency: number | null;
  namespace: string | null;
}

async function searchedLog(privacyLevel: number): Promise<{ tenant: Tenant; body: Record<string, unknown> & { children: StepView[] } }> {
  const { tenant } = await pluginSpace(env, { gdpr: true, update: { policies: { privacy_level: privacyLevel } } });
  env.searx.faults.defaultDelayMs = SEARCH_DELAY_MS;
  const res = await complete(env.h, tenant, { plugins: ['web-search'], messages: userMessage('weather in Paris this weekend') });
  expect(res.status).toBe(200);
  await logsOf(env.h, res.body.id as string);
  const got = await request(env.h.app).get(`/v1/logs/${res.body.id}?include=children`).set(tenant.auth).expect(200);
  return { tenant, body: got.body };
}

const searchItems = (body: Record<string, unknown>) =>
  (body.response as { metadata: { search_results: { items: { url: string; title: string; snippet: string }[] } } }).metadata.search_results.items;

describe('a web-search request in the logs', () => {
  it('shows the search as a plugin step with its own latency, the model call as a model step, and the sources', async () => {
    const { tenant, body } = await searchedLog(1);
    expect(body.step).toBeNull();
    const [search, call] = body.children;
    expect(search).toMatchObject({ step: { kind: 'plugin', plugin: 'web-search' }, namespace: 'web-search' });
    expect(search?.latency).toBeGreaterThanOrEqual(SEARCH_DELAY_MS);
    expect(call).toMatchObject({ step: { kind: 'model', plugin: null } });
    expect(searchItems(body).length).toBeGreaterThan(0);
    expect(searchItems(body)[0]?.url).toMatch(/^https:\/\//);

    // A step read on its own says what it is too.
    const alone = await request(env.h.app).get(`/v1/logs/${search?.id}`).set(tenant.auth).expect(200);
    expect(alone.body.step).toEqual({ kind: 'plugin', plugin: 'web-search' });
  });

  it('masks the sources at privacy level 2, and still says which step was the search', async () => {
    const { body } = await searchedLog(2);
    expect(body.children[0]?.step).toEqual({ kind: 'plugin', plugin: 'web-search' });
    const items = searchItems(body);
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect([item.url, item.title, item.snippet]).toEqual([MASK, MASK, MASK]);
    expect(JSON.stringify(body)).not.toContain('example.org');
    expect(JSON.stringify(body)).not.toContain('weather in Paris');
  });
});
