import { MASK } from '../../src/pipeline/privacy';
import { complete, logsOf, sleep, userMessage } from '../helpers/completion-fixtures';
import { pluginReports, pluginSpace, searchesFor, usePluginHarness, type PluginEnv } from '../helpers/plugin-harness';
import type { Tenant } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { keysMatching } from '../helpers/redis-keys';

/** What a plugin's query and results leave behind at each privacy level, and when its output is cached. */
const env = usePluginHarness();

const spaceAt = (privacyLevel: number) => pluginSpace(env, { gdpr: true, update: { policies: { privacy_level: privacyLevel } } });
const ask = (tenant: Tenant, question: string) => complete(env.h, tenant, { plugins: ['web-search'], messages: userMessage(question) });

/** Every Redis key of the harness's prefix, with its string or hash contents. */
async function redisContents({ h }: PluginEnv): Promise<{ key: string; text: string }[]> {
  const { redis, keySpace } = h.services;
  // Every key of the deployment: its own prefix ({base} on a cluster), its Spaces' and its shards' (base:{…}).
  const keys = await keysMatching(redis, `*${keySpace.base}*`);
  return Promise.all(
    keys.map(async (key) => {
      const type = await redis.type(key);
      if (type === 'string') return { key, text: (await redis.get(key)) ?? '' };
      if (type === 'hash') return { key, text: JSON.stringify(await redis.hgetall(key)) };
      return { key, text: '' };
    }),
  );
}

describe('privacy level 3', () => {
  it('stores nothing of the query or the results, while the search still runs', async () => {
    const { tenant } = await spaceAt(3);
    const marker = `okapi${uniqueSuffix().replace(/[^a-z0-9]/gi, '')}`;
    const res = await ask(tenant, `sightings of the ${marker}`);
    expect(res.status).toBe(200);
    expect(searchesFor(env, marker)).toBe(1);
    expect(res.body.metadata.search_results.items.length).toBeGreaterThan(0);

    // A log would be written right after the reply: give it the time it would take.
    await sleep(500);
    expect(await env.h.services.db.log.count({ where: { app_id: tenant.app_id } })).toBe(0);
    const contents = await redisContents(env);
    expect(contents.filter(({ key }) => key.includes('plugin-cache'))).toEqual([]);
    expect(contents.filter(({ key, text }) => key.includes(marker) || text.includes(marker)).map(({ key }) => key)).toEqual([]);
  });
});

describe('privacy level 2', () => {
  it("masks the plugin child's query and the parent's response, and never caches", async () => {
    const { tenant } = await spaceAt(2);
    const question = `tide tables for ${uniqueSuffix()}`;
    const first = await ask(tenant, question);
    const second = await ask(tenant, question);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(searchesFor(env, question)).toBe(2);
    expect(pluginReports(second.body)[0]).not.toHaveProperty('cached');

    const { parent, children } = await logsOf(env.h, first.body.id as string);
    expect(parent).toMatchObject({ privacy_level: 2, prompt: MASK, response_text: MASK });
    expect(JSON.stringify(parent.response)).not.toContain('tide tables');
    expect(JSON.stringify(parent.payload)).not.toContain('tide tables');
    const plugin = children.find((child) => child.namespace === 'web-search');
    expect(plugin?.payload).toMatchObject({ step: 'plugin', plugin: 'web-search', query: MASK });
    expect(JSON.stringify(children.map(({ payload, response, response_text }) => ({ payload, response, response_text })))).not.toContain('tide tables');
  });
});

describe('privacy level 1', () => {
  it('reuses a cached search for the same question: one backend call, no second cost', async () => {
    const { tenant } = await spaceAt(1);
    const question = `bridge closures ${uniqueSuffix()}`;
    const first = await ask(tenant, question);
    const second = await ask(tenant, question);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(searchesFor(env, question)).toBe(1);
    expect(pluginReports(second.body)).toEqual([expect.objectContaining({ id: 'web-search', status: 'ok', cached: true, cost: 0 })]);
    expect(second.body.metadata.search_results.items).toEqual(first.body.metadata.search_results.items);
    const { children } = await logsOf(env.h, second.body.id as string);
    expect(children.find((child) => child.namespace === 'web-search')?.payload).toMatchObject({
      cached: true,
      query: expect.stringContaining('bridge closures'),
    });
  });
});
