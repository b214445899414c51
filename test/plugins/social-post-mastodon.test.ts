import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Plugin, PluginOutput } from '../../src/plugins/types';
import { createSocialPostPlugin } from '../../src/plugins/social-post';
import { UpstreamError } from '../../src/errors/upstream-error';
import { startMastodonSimulator, type MastodonSimulator } from '../simulator/plugins/mastodon';
import { pluginContext, runPluginScenarios } from './scenarios';
import { socialSpace, spaceContext, type SocialSpace } from './social-post-fixture';

const TOKEN = 'mastodon-token-Z9q';
const ANSWER = 'Switchyard now posts answers to Mastodon. Read more at https://example.org/notes.';

let sim: MastodonSimulator;
let space: SocialSpace;

beforeAll(async () => {
  sim = await startMastodonSimulator({ token: TOKEN });
  space = await socialSpace({ mastodon: { instance_url: sim.url, access_token: TOKEN, visibility: 'unlisted' } });
});
afterAll(async () => {
  await sim.close();
  await space.db.$disconnect();
});

const input = { messages: [], query: 'q', files: [], images: [], args: null, answer: ANSWER };

runPluginScenarios({
  name: 'social-post (mastodon)',
  start: async () => ({ plugin: createSocialPostPlugin(space.config, { db: space.db, secrets: space.box }), close: async () => undefined }),
  script: (...faults) => {
    sim.faults.reset();
    sim.faults.push(...faults);
  },
  input,
  get settings() {
    return space.settings;
  },
  // A getter: each scenario is a new request, else the first post would be returned to all of them.
  get context() {
    return spaceContext(space);
  },
  expectOk: (output: PluginOutput) => {
    expect(output.artifacts).toEqual([
      { type: 'social_post', plugin: 'social-post', network: 'mastodon', id: expect.any(String), url: expect.stringContaining(sim.url) },
    ]);
    expect(output.costUsd).toBe(0);
    expect(output.context).toBeNull();
  },
  empty: 'error',
  skip: { empty: 'posting has no empty answer: a created status always has an id, and a 200 without one is the malformed case' },
});

describe('social-post (mastodon): the post itself', () => {
  let plugin: Plugin;
  beforeAll(() => {
    plugin = createSocialPostPlugin(space.config, { db: space.db, secrets: space.box });
  });
  const run = (requestId: string, answer = ANSWER) => plugin.run({ ...input, answer }, pluginContext(space.settings, spaceContext(space, requestId)));

  it('posts the answer with the Bearer token, the visibility and the request id as Idempotency-Key', async () => {
    const requestId = randomUUID();
    const before = sim.requests.length;
    const output = await run(requestId);
    const sent = sim.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'POST', path: '/api/v1/statuses', body: { status: ANSWER, visibility: 'unlisted' } });
    expect(sent[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(sent[0]?.headers['idempotency-key']).toBe(requestId);
    const status = sim.statuses.at(-1);
    expect(output.artifacts[0]).toMatchObject({ id: status?.id, url: status?.url });
  });

  it('logs neither the post nor its URL, at any privacy level (the post is the answer)', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const requestId = randomUUID();
    const context = pluginContext(space.settings, { ...spaceContext(space, requestId), logger });
    const first = await plugin.run({ ...input }, context);
    await plugin.run({ ...input }, context);
    const url = (first.artifacts[0] as { url: string }).url;
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(url);
    expect(lines.join('\n')).not.toContain('Switchyard now posts');
  });

  it('trims a long answer to 500 characters on a word boundary with an ellipsis', async () => {
    await run(randomUUID(), `${'lorem ipsum '.repeat(80)}end`);
    const text = (sim.requests.at(-1)?.body as { status: string }).status;
    expect(Array.from(text).length).toBeLessThanOrEqual(500);
    expect(text.endsWith('ipsum…') || text.endsWith('lorem…')).toBe(true);
  });

  it("cuts at the instance's own limit, which it announces in GET /api/v2/instance", async () => {
    sim.setMaxCharacters(1000);
    try {
      // A plugin of its own: instance limits are remembered for an hour.
      const fresh = createSocialPostPlugin(space.config, { db: space.db, secrets: space.box });
      await fresh.run({ ...input, answer: `${'lorem ipsum '.repeat(160)}end` }, pluginContext(space.settings, spaceContext(space, randomUUID())));
      const text = (sim.requests.at(-1)?.body as { status: string }).status;
      expect(Array.from(text).length).toBeGreaterThan(500);
      expect(Array.from(text).length).toBeLessThanOrEqual(1000);
      expect(text.endsWith('…')).toBe(true);
    } finally {
      sim.setMaxCharacters(500);
    }
  });

  it('posts once per request id: a second run returns the first post without calling Mastodon', async () => {
    const requestId = randomUUID();
    const first = await run(requestId);
    const before = sim.requests.length;
    const second = await run(requestId);
    expect(sim.requests.length).toBe(before);
    expect(second.artifacts).toEqual(first.artifacts);
    expect(second.warning).toMatch(/already posted/);
    expect(await space.db.socialPost.count({ where: { request_id: requestId } })).toBe(1);
  });

  it('two runs at once make one post', async () => {
    const requestId = randomUUID();
    const statusesBefore = sim.statuses.length;
    const results = await Promise.allSettled([run(requestId), run(requestId)]);
    expect(results.some((r) => r.status === 'fulfilled')).toBe(true);
    expect(sim.statuses.length).toBe(statusesBefore + 1);
  });

  it('after a refusal (4xx) a retry posts; nothing was posted the first time', async () => {
    const requestId = randomUUID();
    sim.faults.push({ kind: 'status', status: 422 });
    await expect(run(requestId)).rejects.toBeInstanceOf(UpstreamError);
    expect((await space.db.socialPost.findUniqueOrThrow({ where: { request_id: requestId } })).status).toBe('failed');
    const output = await run(requestId);
    expect(output.artifacts).toHaveLength(1);
    expect((await space.db.socialPost.findUniqueOrThrow({ where: { request_id: requestId } })).status).toBe('posted');
  });

  it('a lost answer is not reposted blindly: while fresh it is refused, later the same Idempotency-Key returns the same status', async () => {
    let now = Date.now();
    const clocked = createSocialPostPlugin({ ...space.config, timeoutMs: 300 }, { db: space.db, secrets: space.box, clock: () => now });
    const requestId = randomUUID();
    const go = () => clocked.run(input, pluginContext(space.settings, spaceContext(space, requestId)));
    sim.loseAnswers(1);
    const statusesBefore = sim.statuses.length;
    await expect(go()).rejects.toMatchObject({ kind: expect.stringMatching(/timeout|aborted/) });
    expect((await space.db.socialPost.findUniqueOrThrow({ where: { request_id: requestId } })).status).toBe('pending');
    await expect(go()).rejects.toThrow(/already being made/);
    now += 10_000;
    const output = await go();
    expect(sim.statuses.length).toBe(statusesBefore + 1);
    expect(output.artifacts[0]).toMatchObject({ id: sim.statuses.at(-1)?.id });
  });

  it('a lost answer older than Mastodon keeps Idempotency-Keys is refused, not posted again', async () => {
    let now = Date.now();
    const clocked = createSocialPostPlugin({ ...space.config, timeoutMs: 300 }, { db: space.db, secrets: space.box, clock: () => now });
    const requestId = randomUUID();
    const go = () => clocked.run(input, pluginContext(space.settings, spaceContext(space, requestId)));
    sim.loseAnswers(1);
    await expect(go()).rejects.toBeInstanceOf(UpstreamError);
    now += 2 * 60 * 60 * 1000;
    const before = sim.requests.length;
    await expect(go()).rejects.toThrow(/not posted again/);
    expect(sim.requests.length).toBe(before);
  });

  it('a wrong token is an authentication failure, not retried', async () => {
    const other = await socialSpace({ mastodon: { instance_url: sim.url, access_token: 'wrong', visibility: 'public' } });
    const output = createSocialPostPlugin(other.config, { db: other.db, secrets: other.box }).run(input, pluginContext(other.settings, spaceContext(other)));
    await expect(output).rejects.toMatchObject({ kind: 'authentication', status: 401 });
    await other.db.$disconnect();
  });
});
