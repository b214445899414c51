import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { FLOOR_QUEUE, floorReplyChannel, type FloorJob, type FloorReply } from './messages';

interface Waiting {
  res: ServerResponse;
  started: boolean;
}

/**
 * The queue side of a floor's API process, whatever its HTTP edge: one BullMQ job per request, and the
 * answers the worker publishes on this process's one channel written to the waiting responses (JSON, or
 * SSE relayed as it comes).
 */
export class FloorReplyRelay {
  private readonly channel: string;
  private readonly connection: Redis;
  private readonly subscriber: Redis;
  private readonly queue: Queue<FloorJob>;
  private readonly waiting = new Map<string, Waiting>();

  constructor(redisUrl: string, prefix: string) {
    this.channel = floorReplyChannel(prefix, randomUUID());
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    this.subscriber = new Redis(redisUrl);
    this.queue = new Queue<FloorJob>(FLOOR_QUEUE, { connection: this.connection, prefix });
  }

  async start(): Promise<void> {
    this.subscriber.on('message', (_channel: string, message: string) => {
      const parsed = JSON.parse(message) as FloorReply | FloorReply[];
      for (const reply of Array.isArray(parsed) ? parsed : [parsed]) this.relay(reply);
    });
    await this.subscriber.subscribe(this.channel);
  }

  /** Enqueues the client's parsed body; the answer is written to `res` when the worker publishes it. */
  async accept(body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    const id = randomUUID();
    this.waiting.set(id, { res, started: false });
    res.on('close', () => this.waiting.delete(id));
    await this.queue.add('completion', { id, replyTo: this.channel, stream: body.stream === true, body }, { jobId: id, removeOnComplete: true, removeOnFail: true });
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.connection.disconnect();
    this.subscriber.disconnect();
  }

  private relay(reply: FloorReply): void {
    const wait = this.waiting.get(reply.id);
    if (!wait) return;
    const { res } = wait;
    if (reply.type === 'chunks') {
      if (!wait.started) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      wait.started = true;
      res.write(reply.chunks.map((chunk) => `data: ${chunk}\n\n`).join(''));
      return;
    }
    this.waiting.delete(reply.id);
    if (wait.started) {
      res.end('data: [DONE]\n\n');
      return;
    }
    const status = reply.type === 'done' ? 200 : reply.status;
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply.body) });
    res.end(reply.body);
  }
}

/** A 500 for a request the floor could not take (the floors have no other error path). */
export function failed(res: ServerResponse, err: unknown): void {
  if (res.headersSent) return void res.end();
  res.writeHead(500, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: String(err) } }));
}
