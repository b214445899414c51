import OpenAI from 'openai';
import { complete, completeStream, isolatedSpace, sseEvents, userMessage } from '../helpers/completion-fixtures';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { startRedisCluster, type LocalRedisCluster } from '../helpers/redis-cluster';
import { startSimulator, type Simulator } from '../simulator/server';
import { createServer, type Server } from 'node:http';

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
  h = startCompletionsHarness({ providers: simulatedProviders(sim), redisClusterNodes: cluster.nodes });
  server = createServer(h.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}, 60_000);
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
  await sim.close();
  await cluster.stop();
});

describe('on a Redis Cluster', () => {
  it('hash-tags the prefix, so queues and our keys share one slot', () => {
    expect(h.services.config.redisPrefix).toMatch(/^\{.+\}$/);
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
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => client.chat.completions.create({ model: 'clustered', messages: [{ role: 'user', content: `parallel ${i}` }] })));
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
