import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { FLOOR_QUEUE, floorReplyChannel, type FloorJob, type FloorReply } from './messages';

/**
 * The admission every request of issue 20's configuration needs, the leanest way: the Space's version
 * stamp read (privacy and configuration changes apply to the very next request, so no cached copy may
 * be trusted without it) and the request counted in a one-minute window of the rate limit, in one
 * script and one round trip. Switchyard's (intake/rate-limiter.ts) also weighs the previous window.
 */
const ADMIT = `
local stamp = redis.call('GET', KEYS[1]) or ''
if stamp ~= ARGV[1] then return -1 end
local count = redis.call('INCR', KEYS[2])
if count == 1 then redis.call('PEXPIRE', KEYS[2], 120000) end
return count
`;

/** The Space stamp the required floor's API was started at. */
const STAMP = '1';

type AdmittingRedis = Redis & { floorAdmit(stampKey: string, windowKey: string, stamp: string): Promise<number> };

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

  /** With `admit`, each request is admitted first (ADMIT), as the required-work floor does. */
  constructor(
    redisUrl: string,
    private readonly prefix: string,
    private readonly admit = false,
  ) {
    this.channel = floorReplyChannel(prefix, randomUUID());
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    this.connection.defineCommand('floorAdmit', { numberOfKeys: 2, lua: ADMIT });
    this.subscriber = new Redis(redisUrl);
    this.queue = new Queue<FloorJob>(FLOOR_QUEUE, { connection: this.connection, prefix });
  }

  async start(): Promise<void> {
    this.subscriber.on('message', (_channel: string, message: string) => {
      const parsed = JSON.parse(message) as FloorReply | FloorReply[];
      for (const reply of Array.isArray(parsed) ? parsed : [parsed]) this.relay(reply);
    });
    await this.subscriber.subscribe(this.channel);
    if (this.admit) await this.connection.set(this.stampKey(), STAMP);
  }

  /** Enqueues the client's parsed body; the answer is written to `res` when the worker publishes it. */
  async accept(body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    if (this.admit && (await (this.connection as AdmittingRedis).floorAdmit(this.stampKey(), this.windowKey(), STAMP)) < 0) {
      throw new Error('the Space changed: the floor has no other stamp to load');
    }
    const id = randomUUID();
    this.waiting.set(id, { res, started: false });
    res.on('close', () => this.waiting.delete(id));
    await this.queue.add(
      'completion',
      { id, replyTo: this.channel, stream: body.stream === true, body },
      { jobId: id, removeOnComplete: true, removeOnFail: true },
    );
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.connection.disconnect();
    this.subscriber.disconnect();
  }

  private stampKey(): string {
    return `${this.prefix}:space:stamp`;
  }

  private windowKey(): string {
    return `${this.prefix}:ratelimit:${Math.floor(Date.now() / 60_000)}`;
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
