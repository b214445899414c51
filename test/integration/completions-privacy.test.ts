import { randomUUID } from 'node:crypto';
import type { RedisClient as Redis } from '../../src/queue/redis';
import pino from 'pino';
import request from 'supertest';
import type { Log } from '../../src/generated/prisma/client';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import {
  complete,
  completeStream,
  eventually,
  isolatedSpace,
  logsOf,
  nth,
  script,
  sseEvents,
  userMessage,
  type IsolatedSpace,
} from '../helpers/completion-fixtures';
import type { Tenant } from '../helpers/test-context';
import { startSimulator, type Simulator } from '../simulator/server';

let sim: Simulator;
let h: CompletionsHarness;
/** Every line the app and the workers logged, at every level. */
const logLines: string[] = [];

beforeAll(async () => {
  sim = await startSimulator();
  const logger = pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) });
  h = startCompletionsHarness({ providers: simulatedProviders(sim) }, { logger });
});
afterAll(async () => {
  await h.close();
  await sim.close();
});

/** A prompt no other request sends, so finding it anywhere means this request left it there. */
const secretPrompt = () => `My account number is ${randomUUID()}, can you check it?`;

const MASK = '[masked]';

function spaceAt(privacyLevel: number, policies: object = {}): Promise<IsolatedSpace> {
  return isolatedSpace(h, { models: [{ name: 'answering', gdpr: true }], update: { policies: { privacy_level: privacyLevel, ...policies } } });
}

const getLog = (tenant: Tenant, id: string) => request(h.app).get(`/v1/logs/${id}`).set(tenant.auth);

/** Every value stored under the harness's Redis prefix, as text. */
async function redisDump(redis: Redis, prefix: string): Promise<string> {
  const parts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'string') parts.push(String(await redis.get(key)));
      else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
      else if (type === 'zset') parts.push(JSON.stringify(await redis.zrange(key, 0, -1)));
      else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
      parts.push(key);
    }
  } while (cursor !== '0');
  return parts.join('\n');
}

/** Level 3: once the job has ended nothing of the request is left, in the database, Redis or the logs. */
async function expectNothingKept(tenant: Tenant, requestId: string, prompt: string): Promise<void> {
  const queue = h.services.queues.completions;
  // The worker writes logs before its job ends, so once the job is gone any log would be there.
  await eventually(async () => ((await queue.getJob(requestId)) ? null : true));
  expect(await queue.getJob(requestId)).toBeFalsy();
  expect(await h.services.db.log.count({ where: { OR: [{ id: requestId }, { parent_id: requestId }, { app_id: tenant.app_id }] } })).toBe(0);
  expect((await getLog(tenant, requestId)).status).toBe(404);
  expect(await redisDump(h.services.redis, h.services.config.redisPrefix)).not.toContain(prompt);
  expect(logLines.join('')).not.toContain(prompt);
}

/** A log row as text (its timestamp is a bigint). */
const stored = (log: Log) => JSON.stringify(log, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value));

function expectMasked(log: Log, prompt: string): void {
  expect(log.privacy_level).toBe(2);
  expect(log.prompt).toBe(MASK);
  expect(log.response_text).toBe(MASK);
  expect(log.payload).toMatchObject({ messages: [{ role: 'user', content: MASK }] });
  expect(log.response).toMatchObject({ choices: [{ message: { role: 'assistant', content: MASK } }] });
  expect(stored(log)).not.toContain(prompt.slice(0, 30));
  // The figures stay.
  expect(log.total_tokens).toBeGreaterThan(0);
  expect(log.total_tokens_cost).toBeGreaterThan(0);
  expect(log.status_code).toBe(200);
}

describe('privacy level 1', () => {
  it('stores the request and the answer as they were', async () => {
    const { tenant } = await spaceAt(1);
    const prompt = secretPrompt();
    const res = await complete(h, tenant, { messages: userMessage(prompt) });
    const { parent } = await logsOf(h, res.body.id);
    expect(parent).toMatchObject({ privacy_level: 1, prompt, response_text: res.body.choices[0].message.content });
    expect(parent.payload).toMatchObject({ messages: userMessage(prompt) });
  });
});

describe('privacy level 2', () => {
  it('masks the texts but keeps the figures and a visible log, when the Space asks', async () => {
    const { tenant } = await spaceAt(2);
    const prompt = secretPrompt();
    const res = await complete(h, tenant, { messages: userMessage(prompt) });
    expect(res.status).toBe(200);
    // The client still gets the answer.
    expect(res.body.choices[0].message.content).toContain(prompt.slice(0, 20));
    const { parent, children } = await logsOf(h, res.body.id);
    expectMasked(parent, prompt);
    expect(children).toHaveLength(1);
    expect(children[0]).toMatchObject({ privacy_level: 2, status_code: 200 });
    expect(stored(nth(children, 0))).not.toContain(prompt.slice(0, 30));
    const read = await getLog(tenant, res.body.id);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ privacy_level: 2, prompt: MASK, response_text: MASK });
  });

  it('masks a stream too', async () => {
    const { tenant } = await spaceAt(2);
    const prompt = secretPrompt();
    const res = await completeStream(h, tenant, { messages: userMessage(prompt) });
    expect(res.status).toBe(200);
    const { parent } = await logsOf(h, nth(sseEvents(res.text), 0).id as string);
    expectMasked(parent, prompt);
  });

  it('applies when the request asks for it in custom_headers', async () => {
    const { tenant } = await spaceAt(1);
    const prompt = secretPrompt();
    const res = await complete(h, tenant, { messages: userMessage(prompt), custom_headers: { policies: { privacy_level: 2 } } });
    expectMasked((await logsOf(h, res.body.id)).parent, prompt);
  });

  it('cannot be lowered by the request', async () => {
    const { tenant } = await spaceAt(2);
    const prompt = secretPrompt();
    const res = await complete(h, tenant, { messages: userMessage(prompt), custom_headers: { policies: { privacy_level: 1 } } });
    expectMasked((await logsOf(h, res.body.id)).parent, prompt);
  });
});

/** Level 2: the finished job stays for bull-board, with its request masked like the log; Redis keeps no text. */
async function expectMaskedJob(requestId: string, prompt: string): Promise<void> {
  const queue = h.services.queues.completions;
  const job = await eventually(async () => ((await queue.getJobState(requestId)) === 'completed' ? queue.getJob(requestId) : null));
  expect(job.data.request.chat.messages).toEqual([{ role: 'user', content: MASK }]);
  expect(await redisDump(h.services.redis, h.services.config.redisPrefix)).not.toContain(prompt);
}

describe('privacy level 2 in Redis', () => {
  it('keeps the finished job for bull-board with its request masked', async () => {
    const { tenant } = await spaceAt(2);
    const prompt = secretPrompt();
    const res = await complete(h, tenant, { messages: userMessage(prompt) });
    expect(res.status).toBe(200);
    await expectMaskedJob(res.body.id, prompt);
  });

  it('masks the job of a stream and of a failed request too', async () => {
    const { tenant, models } = await spaceAt(2, { max_same_model_retries: 0 });
    const streamed = secretPrompt();
    const stream = await completeStream(h, tenant, { messages: userMessage(streamed) });
    await expectMaskedJob(nth(sseEvents(stream.text), 0).id as string, streamed);
    script(sim, models.answering, [{ kind: 'status', status: 503 }]);
    const failed = secretPrompt();
    const res = await complete(h, tenant, { messages: userMessage(failed) });
    expect(res.status).toBe(502);
    await expectMaskedJob(String(res.headers['x-switchyard-log-id']), failed);
  });

  it('a level 1 job keeps its text (the dump sees it), so the checks above can fail', async () => {
    const { tenant } = await spaceAt(1);
    const prompt = secretPrompt();
    const res = await complete(h, tenant, { messages: userMessage(prompt) });
    await eventually(async () => ((await h.services.queues.completions.getJobState(res.body.id)) === 'completed' ? true : null));
    expect(await redisDump(h.services.redis, h.services.config.redisPrefix)).toContain(prompt);
  });
});

describe('privacy level 3', () => {
  it('leaves nothing behind once the job ends, even with a retried call', async () => {
    const { tenant, models } = await spaceAt(3);
    script(sim, models.answering, [{ kind: 'status', status: 503 }]);
    const before = logLines.length;
    const prompt = secretPrompt();
    const res = await complete(h, tenant, { messages: userMessage(prompt) });
    expect(res.status).toBe(200);
    expect(res.body.metadata.retries).toBe(1);
    await expectNothingKept(tenant, res.body.id, prompt);
    // The capture works: the request and the failed call were logged, only without the prompt.
    expect(logLines.length).toBeGreaterThan(before);
    expect(logLines.slice(before).join('')).toContain('upstream call failed');
  });

  it('leaves nothing behind for a stream', async () => {
    const { tenant } = await spaceAt(3);
    const prompt = secretPrompt();
    const res = await completeStream(h, tenant, { messages: userMessage(prompt) });
    expect(res.status).toBe(200);
    await expectNothingKept(tenant, nth(sseEvents(res.text), 0).id as string, prompt);
  });

  it('leaves nothing behind for a request that failed', async () => {
    const { tenant, models } = await spaceAt(3, { max_same_model_retries: 1 });
    script(sim, models.answering, [
      { kind: 'status', status: 503 },
      { kind: 'status', status: 503 },
    ]);
    const before = logLines.length;
    const prompt = secretPrompt();
    const res = await complete(h, tenant, { messages: userMessage(prompt) });
    expect(res.status).toBe(502);
    expect(JSON.stringify(res.body)).not.toContain(prompt);
    // A failed request's body carries no id; the worker's log lines about its calls do.
    const failedCall = logLines
      .slice(before)
      .map((line) => JSON.parse(line) as { msg: string; log_id?: string })
      .find((line) => line.msg === 'upstream call failed');
    const requestId = failedCall?.log_id;
    if (requestId === undefined) throw new Error('the failed call was not logged with its request id');
    await expectNothingKept(tenant, requestId, prompt);
  });

  it('applies when the request asks for it in custom_headers', async () => {
    const { tenant } = await spaceAt(1);
    const prompt = secretPrompt();
    const res = await complete(h, tenant, { messages: userMessage(prompt), custom_headers: { policies: { privacy_level: 3 } } });
    expect(res.status).toBe(200);
    await expectNothingKept(tenant, res.body.id, prompt);
  });

  it('cannot be lowered by the request', async () => {
    const { tenant } = await spaceAt(3);
    const prompt = secretPrompt();
    const res = await complete(h, tenant, { messages: userMessage(prompt), custom_headers: { policies: { privacy_level: 1 } } });
    expect(res.status).toBe(200);
    await expectNothingKept(tenant, res.body.id, prompt);
  });
});
