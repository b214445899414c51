import { randomUUID } from 'node:crypto';
import type { Plugin, PluginOutput } from '../../src/plugins/types';
import { createSocialPostPlugin } from '../../src/plugins/social-post';
import { TID_PATTERN } from '../../src/plugins/social-post/tid';
import { startBlueskySimulator, type BlueskySimulator } from '../simulator/plugins/bluesky';
import { pluginContext, runPluginScenarios } from './scenarios';
import { socialSpace, spaceContext, type SocialSpace } from './social-post-fixture';

const IDENTIFIER = 'switchyard.example.com';
const PASSWORD = 'abcd-efgh-ijkl-mnop';
const ANSWER = 'Posted by Switchyard — details at https://example.org/a?b=1. Done';

let sim: BlueskySimulator;
let space: SocialSpace;

beforeAll(async () => {
  sim = await startBlueskySimulator({ identifier: IDENTIFIER, password: PASSWORD });
  space = await socialSpace({ bluesky: { service_url: sim.url, identifier: IDENTIFIER, app_password: PASSWORD } });
});
afterAll(async () => {
  await sim.close();
  await space.db.$disconnect();
});

const input = { messages: [], query: 'q', files: [], images: [], args: null, answer: ANSWER };

runPluginScenarios({
  name: 'social-post (bluesky)',
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
      {
        type: 'social_post',
        plugin: 'social-post',
        network: 'bluesky',
        id: expect.stringMatching(/^at:\/\/did:plc:/),
        url: expect.stringMatching(/^https:\/\/bsky\.app\/profile\/switchyard\.example\.com\/post\//),
      },
    ]);
    expect(output.costUsd).toBe(0);
  },
  empty: 'error',
  skip: { empty: 'posting has no empty answer: a created record always has a uri and cid, and a 200 without them is the malformed case' },
});

describe('social-post (bluesky): the post itself', () => {
  let plugin: Plugin;
  beforeAll(() => {
    plugin = createSocialPostPlugin(space.config, { db: space.db, secrets: space.box });
  });
  const run = (requestId: string, answer = ANSWER) => plugin.run({ ...input, answer }, pluginContext(space.settings, spaceContext(space, requestId)));

  it('creates an app.bsky.feed.post record under a TID we chose, with a link facet, and answers its bsky.app URL', async () => {
    const output = await run(randomUUID());
    const record = sim.records.at(-1);
    expect(record?.rkey).toMatch(TID_PATTERN);
    expect(record?.value).toMatchObject({ $type: 'app.bsky.feed.post', text: ANSWER, createdAt: expect.any(String) });
    const link = 'https://example.org/a?b=1';
    const start = Buffer.byteLength(ANSWER.slice(0, ANSWER.indexOf(link)));
    expect(record?.value.facets).toEqual([
      { index: { byteStart: start, byteEnd: start + link.length }, features: [{ $type: 'app.bsky.richtext.facet#link', uri: link }] },
    ]);
    expect(output.artifacts[0]).toMatchObject({ id: record?.uri, url: `https://bsky.app/profile/${IDENTIFIER}/post/${record?.rkey}` });
    const create = sim.requests.filter((r) => r.path === '/xrpc/com.atproto.repo.createRecord').at(-1);
    expect(create?.headers.authorization).toMatch(/^Bearer sim-access-/);
    expect(create?.body).toMatchObject({ repo: sim.did, collection: 'app.bsky.feed.post', rkey: record?.rkey });
  });

  it('trims to 300 graphemes (a flag is one) on a word boundary with an ellipsis', async () => {
    await run(randomUUID(), `${'🇫🇷 flag '.repeat(120)}`);
    const text = sim.records.at(-1)?.value.text ?? '';
    const graphemes = Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)).length;
    expect(graphemes).toBeLessThanOrEqual(300);
    expect(text.endsWith('…')).toBe(true);
    expect(text).not.toMatch(/\s…$/);
  });

  it('reuses its session, and replaces an expired one', async () => {
    await run(randomUUID());
    const sessions = sim.sessionsCreated();
    await run(randomUUID());
    expect(sim.sessionsCreated()).toBe(sessions);
    sim.expireSessions();
    await run(randomUUID());
    expect(sim.sessionsCreated()).toBe(sessions + 1);
  });

  it('posts once per request id: a second run returns the first post without calling Bluesky', async () => {
    const requestId = randomUUID();
    const first = await run(requestId);
    const before = sim.requests.length;
    const second = await run(requestId);
    expect(sim.requests.length).toBe(before);
    expect(second.artifacts).toEqual(first.artifacts);
  });

  it('after a lost answer, the record under the chosen key is found, not created twice', async () => {
    let now = Date.now();
    const clocked = createSocialPostPlugin({ ...space.config, timeoutMs: 300 }, { db: space.db, secrets: space.box, clock: () => now });
    const requestId = randomUUID();
    const go = () => clocked.run(input, pluginContext(space.settings, spaceContext(space, requestId)));
    sim.loseAnswers(1);
    const recordsBefore = sim.records.length;
    await expect(go()).rejects.toMatchObject({ kind: expect.stringMatching(/timeout|aborted/) });
    expect(sim.records.length).toBe(recordsBefore + 1);
    await expect(go()).rejects.toThrow(/already being made/);
    now += 10_000;
    const output = await go();
    expect(sim.records.length).toBe(recordsBefore + 1);
    expect(output.artifacts[0]).toMatchObject({ id: sim.records.at(-1)?.uri });
    expect(sim.requests.some((r) => r.path.startsWith('/xrpc/com.atproto.repo.getRecord'))).toBe(true);
  });

  it('after a lost request that never arrived, the check finds nothing and the post is made under the same key', async () => {
    let now = Date.now();
    const clocked = createSocialPostPlugin({ ...space.config, timeoutMs: 300 }, { db: space.db, secrets: space.box, clock: () => now });
    const requestId = randomUUID();
    const go = () => clocked.run(input, pluginContext(space.settings, spaceContext(space, requestId)));
    await go(); // a session, so the next fault hits createRecord
    const second = randomUUID();
    const goSecond = () => clocked.run(input, pluginContext(space.settings, spaceContext(space, second)));
    sim.faults.push({ kind: 'timeout' });
    await expect(goSecond()).rejects.toBeDefined();
    const row = await space.db.socialPost.findUniqueOrThrow({ where: { request_id: second } });
    now += 10_000;
    await goSecond();
    expect(sim.records.at(-1)?.rkey).toBe(row.rkey);
  });

  it('a wrong app password is an authentication failure', async () => {
    const other = await socialSpace({ bluesky: { service_url: sim.url, identifier: IDENTIFIER, app_password: 'wrong' } });
    const output = createSocialPostPlugin(other.config, { db: other.db, secrets: other.box }).run(input, pluginContext(other.settings, spaceContext(other)));
    await expect(output).rejects.toMatchObject({ kind: 'authentication', status: 401 });
    await other.db.$disconnect();
  });
});
