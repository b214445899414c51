import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { runChildEntry } from '../child-entry';
import { readBody } from '../http-body';
import { FLOOR_QUEUE, floorReplyChannel, type FloorJob, type FloorReply } from './messages';

/**
 * The queue floor's API process: reads the body, enqueues one BullMQ job, and answers with what the
 * worker publishes on this process's channel (JSON, or SSE relayed as it comes). No key check, no
 * validation, no routing, no rate limit: the least the HTTP edge of a queue-shaped gateway does.
 * argv: Redis URL, key prefix. Prints `{"url": ...}` once listening.
 */
const [redisUrl = '', prefix = ''] = process.argv.slice(2);
const channel = floorReplyChannel(prefix, randomUUID());
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
const subscriber = new Redis(redisUrl);
const queue = new Queue<FloorJob>(FLOOR_QUEUE, { connection, prefix });

interface Waiting {
  res: ServerResponse;
  started: boolean;
}
const waiting = new Map<string, Waiting>();

function relay(reply: FloorReply): void {
  const wait = waiting.get(reply.id);
  if (!wait) return;
  const { res } = wait;
  if (reply.type === 'chunks') {
    if (!wait.started) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    wait.started = true;
    res.write(reply.chunks.map((chunk) => `data: ${chunk}\n\n`).join(''));
    return;
  }
  waiting.delete(reply.id);
  if (wait.started) {
    res.end('data: [DONE]\n\n');
    return;
  }
  const status = reply.type === 'done' ? 200 : reply.status;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply.body) });
  res.end(reply.body);
}

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
  const id = randomUUID();
  waiting.set(id, { res, started: false });
  res.on('close', () => waiting.delete(id));
  await queue.add('completion', { id, replyTo: channel, stream: body.stream === true, body }, { jobId: id, removeOnComplete: true, removeOnFail: true });
}

const server = createServer((req, res) => {
  answer(req, res).catch((err: unknown) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: String(err) } }));
  });
});
server.keepAliveTimeout = 30_000;

runChildEntry('queue floor api', async () => {
  subscriber.on('message', (_channel: string, message: string) => {
    const parsed = JSON.parse(message) as FloorReply | FloorReply[];
    for (const reply of Array.isArray(parsed) ? parsed : [parsed]) relay(reply);
  });
  await subscriber.subscribe(channel);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ready: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await queue.close();
      connection.disconnect();
      subscriber.disconnect();
    },
  };
});
