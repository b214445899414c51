import type { Job } from 'bullmq';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { runChildEntry } from '../child-entry';
import { floorAgent, withPluginContext, type PluginBackendUrls } from '../floor-plugins';
import { FloorLogWriter } from './log-writer';
import { FLOOR_QUEUE, type FloorJob } from './messages';
import { FloorReplyPublisher } from './reply-publisher';

/**
 * The queue floor's worker process: takes each job, calls the model upstream (streaming or not), writes
 * the request's log row and waits for its commit, then publishes the answer to the API process that
 * waits for it; stream chunks go out as they come, the first at once and the rest gathered for up to 5 ms
 * (reply-publisher.ts: one message per API channel for what is ready together, as Switchyard's
 * ReplyPublisher). No routing, plugins, retries, prices or privacy
 * rules: the least the worker of a queue-shaped gateway that logs every request does. With the plugin
 * backends' URLs, a request naming `plugins` first calls both at once (tools/bench/floor-plugins.ts).
 * argv: Redis URL, key prefix, upstream base URL (…/v1), database URL, then optionally the SearXNG and
 * embeddings base URLs.
 */
const [redisUrl = '', prefix = '', upstreamUrl = '', databaseUrl = '', searxng, embeddings] = process.argv.slice(2);
const backends: PluginBackendUrls | null = searxng && embeddings ? { searxng, embeddings } : null;
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
const publisher = new Redis(redisUrl);
const replies = new FloorReplyPublisher(publisher);
const logs = new FloorLogWriter(databaseUrl);

interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
}
interface Chunk {
  choices?: { delta?: { content?: string } }[];
  usage?: Usage | null;
}

/** Relays the upstream's SSE `data:` payloads; answers the text and usage the log needs. */
async function relayStream(job: FloorJob, body: AsyncIterable<Buffer>): Promise<{ text: string; usage: Usage }> {
  let buffer = '';
  let text = '';
  let usage: Usage = {};
  let sentFirst = false;
  for await (const part of body) {
    buffer += part.toString('utf8');
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      if (!event.startsWith('data: ')) continue;
      const data = event.slice(6);
      if (data === '[DONE]') continue;
      const chunk = JSON.parse(data) as Chunk;
      text += chunk.choices?.[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
      replies.publish(job.replyTo, { id: job.id, type: 'chunks', chunks: [data] }, !sentFirst);
      sentFirst = true;
    }
  }
  return { text, usage };
}

/** The body sent to the model: the client's, with the plugins' sources when it named plugins. */
async function modelCall(body: FloorJob['body']): Promise<{ body: Record<string, unknown>; metadata: object | null }> {
  if (!backends || !Array.isArray(body.plugins)) return { body, metadata: null };
  const { plugins: _plugins, ...rest } = body;
  const { messages, metadata } = await withPluginContext(body.messages as { role: string; content: string }[], backends);
  return { body: { ...rest, messages }, metadata };
}

async function run(job: Job<FloorJob>): Promise<void> {
  const data = job.data;
  const call = await modelCall(data.body);
  const res = await request(`${upstreamUrl}/chat/completions`, {
    method: 'POST',
    dispatcher: floorAgent,
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
    body: JSON.stringify(data.stream ? { ...call.body, stream_options: { include_usage: true } } : call.body),
  });
  if (res.statusCode !== 200) {
    const body = await res.body.text();
    replies.publish(data.replyTo, { id: data.id, type: 'error', status: 502, body }, true);
    return;
  }
  let answer: { text: string; usage: Usage; body: string };
  if (data.stream) answer = { ...(await relayStream(data, res.body)), body: '' };
  else {
    const body = await res.body.text();
    const parsed = JSON.parse(body) as { choices?: { message?: { content?: string } }[]; usage?: Usage };
    answer = { text: parsed.choices?.[0]?.message?.content ?? '', usage: parsed.usage ?? {}, body: call.metadata ? JSON.stringify({ ...parsed, metadata: call.metadata }) : body };
  }
  const model = typeof data.body.model === 'string' ? data.body.model : '';
  await logs.write({ id: data.id, model, request: data.body, response: answer.text, prompt_tokens: answer.usage.prompt_tokens ?? 0, completion_tokens: answer.usage.completion_tokens ?? 0 });
  replies.publish(data.replyTo, { id: data.id, type: 'done', body: answer.body }, true);
}

runChildEntry('queue floor worker', async () => {
  await logs.start();
  const worker = new Worker<FloorJob>(FLOOR_QUEUE, run, { connection, prefix, concurrency: 256 });
  await worker.waitUntilReady();
  return {
    ready: { worker: true },
    close: async () => {
      await worker.close();
      await logs.close();
      connection.disconnect();
      publisher.disconnect();
    },
  };
});
