import OpenAI from 'openai';
import { complete, completeStream, isolatedSpace, sseEvents, userMessage } from '../helpers/completion-fixtures';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { startRedisCluster, type LocalRedisCluster } from '../helpers/redis-cluster';
import { startSimulator, type Simulator } from '../simulator/server';
import { createServer, type Server } from 'node:http';
import pino from 'pino';
import { randomUUID } from 'node:crypto';
import { slotOf } from '../../src/queue/key-space';
import { BackendLimiter } from '../../src/plugins/backend-limits';

/**
 * The service on a local three-node Redis Cluster (REDIS_CLUSTER_NODES): API → BullMQ → worker →
 * reply over pub/sub, JSON and streaming, with every key of ours under the hash-tagged prefix.
 */
let cluster: LocalRedisCluster;
let sim: Simulator;
let h: CompletionsHarness;
let server: Server;

beforeAll(async () => {
  cluster = await startRedisCluster();
  sim = await startSimulator();
  // What this file tests is the cluster, not timeouts: 40 streams at once on a machine busy with the whole suite took longer than the harness's 2 s first byte.
  h = startCompletionsHarness({ providers: simulatedProviders(sim), redisClusterNodes: cluster.nodes, upstreamTimeoutMs: 15_000 });
  server = createServer(h.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}, 60_000);
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
  await sim.close();
  await cluster.stop();
});

/** The master serving a slot, from CLUSTER SLOTS: `host:port`. */
async function mastersBySlot(): Promise<(slot: number) => string> {
  const ranges = await h.services.redis.cluster('SLOTS');
  return (slot) => {
    const range = ranges.find(([low, high]) => slot >= low && slot <= high);
    return range?.[2] ? `${range[2][0]}:${range[2][1]}` : 'none';
  };
}

describe('on a Redis Cluster', () => {
  it("hash-tags the deployment's prefix, so its queues and keys share one slot", () => {
    expect(h.services.config.redisPrefix).toMatch(/^\{.+\}$/);
  });

  it('spreads the completion queue over every master: 6 shards by default, two on each of the 3 masters', async () => {
    const { layout } = h.services.queues.completions;
    expect(layout.map((shard) => shard.name)).toEqual(['completions-0', 'completions-1', 'completions-2', 'completions-3', 'completions-4', 'completions-5']);
    const masters = await mastersBySlot();
    const perMaster = new Map<string, number>();
    for (const shard of layout) {
      const master = masters(slotOf(`${shard.prefix}:${shard.name}:wait`));
      perMaster.set(master, (perMaster.get(master) ?? 0) + 1);
    }
    expect([...perMaster.values()]).toEqual([2, 2, 2]);
    // A request's reply channel is in its shard's slot, so the reply stays on the master of its job.
    const requestId = randomUUID();
    const shard = layout[h.services.queues.completions.shardOf(requestId)];
    expect(slotOf(h.services.queues.completions.replyChannelFor(requestId, 'api-1'))).toBe(slotOf(`${shard?.prefix}:${shard?.name}:wait`));
  });

  it("gives each Space's keys the Space as hash tag", () => {
    const appId = randomUUID();
    expect(slotOf(`${h.services.keySpace.space(appId)}:ratelimit:1`)).toBe(slotOf(appId));
    expect(h.services.spaceVersions.keyOf(appId)).toBe(`${h.services.keySpace.base}:{${appId}}:space-version`);
  });

  it('keeps a plugin backend limit (redis-semaphore and its release channel) across two limiters', async () => {
    const logger = pino({ level: 'silent' });
    const limiters = [
      new BackendLimiter(h.services.redis, h.services.config.redisPrefix, logger),
      new BackendLimiter(h.services.redis, h.services.config.redisPrefix, logger),
    ];
    const state = { running: 0, most: 0 };
    const work = async () => {
      state.running += 1;
      state.most = Math.max(state.most, state.running);
      await new Promise((resolve) => setTimeout(resolve, 50));
      state.running -= 1;
      return 'done';
    };
    const options = { signal: new AbortController().signal, deadline: Date.now() + 20_000 };
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (limiters[i % 2] as BackendLimiter).run('web-search:cluster', 2, work, options)));
    expect(results).toEqual(Array.from({ length: 8 }, () => 'done'));
    expect(state.most).toBe(2);
    await Promise.all(limiters.map((limiter) => limiter.close()));
  });

  it("takes from a Space's rate limit and confirms the Space's version in one script (their keys share the slot)", async () => {
    const { tenant } = await isolatedSpace(h, { models: [{ name: 'limited' }] });
    await h.services.db.app.update({ where: { id: tenant.app_id }, data: { rate_limit: 2 } });
    await h.services.spaceVersions.bump([tenant.app_id]);
    // The first request loads the Space; the next ones take through RateLimiter.takeAtStamp.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await complete(h, tenant, { model: 'limited', messages: userMessage(`limited ${i}`) })).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('answers a completion through API, queue and worker, and a streamed one, with the official SDK', async () => {
    const { tenant } = await isolatedSpace(h, { models: [{ name: 'clustered' }] });
    const res = await complete(h, tenant, { model: 'clustered', messages: userMessage('Hello over the cluster') });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toEqual(expect.any(String));

    const streamed = await completeStream(h, tenant, { model: 'clustered', messages: userMessage('Stream over the cluster') });
    expect(streamed.status).toBe(200);
    expect(sseEvents(streamed.text).length).toBeGreaterThan(1);

    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const client = new OpenAI({ apiKey: tenant.api_key, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.chat.completions.create({ model: 'clustered', messages: [{ role: 'user', content: `parallel ${i}` }] })),
    );
    expect(answers.every((a) => (a.choices[0]?.message.content ?? '').length > 0)).toBe(true);

    // Replies go by sharded pub/sub: a stream's deltas never arrive after its end, whatever node took them.
    const streams = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const stream = await client.chat.completions.create({ model: 'clustered', stream: true, messages: [{ role: 'user', content: `stream ${i}` }] });
        let text = '';
        let finished = '';
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? '';
          finished ||= chunk.choices[0]?.finish_reason ?? '';
        }
        return { text, finished };
      }),
    );
    expect(streams.filter((s) => s.text.length === 0 || s.finished === '')).toEqual([]);
  });
});
