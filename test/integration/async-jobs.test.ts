import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { secretBoxFor } from '../../src/secrets/secret-box';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { complete, eventually, isolatedSpace, script, sleep, userMessage, type IsolatedSpace } from '../helpers/completion-fixtures';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { startSimulator, type Simulator } from '../simulator/server';
import { startWebhookReceiver, type WebhookReceiver } from '../simulator/webhook-receiver';
import { keysMatching } from '../helpers/redis-keys';

let sim: Simulator;
let receiver: WebhookReceiver;
/** Listens on loopback like `receiver`, but is not in SSRF_ALLOWED_HOSTS. */
let forbidden: WebhookReceiver;
let h: CompletionsHarness;
const secretKeys = { current: randomBytes(32), previous: [] };

/** The service pointed at the simulator, with fast webhook retries and the receiver allowed through the SSRF-safe client. */
function asyncConfig(overrides: Partial<Config['asyncJobs']> = {}): Partial<Config> {
  const base = loadConfig();
  return {
    providers: simulatedProviders(sim),
    asyncJobs: { ...base.asyncJobs, webhookAttempts: 3, webhookBackoffMs: 200, webhookTimeoutMs: 2000, ...overrides },
    plugins: { ...base.plugins, net: { ...base.plugins.net, ssrfAllowedHosts: [receiver.host] } },
    secrets: { keys: secretKeys },
  };
}

beforeAll(async () => {
  [sim, receiver, forbidden] = await Promise.all([startSimulator(), startWebhookReceiver(), startWebhookReceiver()]);
  h = startCompletionsHarness(asyncConfig());
});
afterAll(async () => {
  await h.close();
  await Promise.all([sim.close(), receiver.close(), forbidden.close()]);
});

const ASYNC = { Prefer: 'respond-async' };

function space(update: Record<string, unknown> = {}): Promise<IsolatedSpace<'answering'>> {
  return isolatedSpace(h, { models: [{ name: 'answering', gdpr: true }], update });
}

function submitAsync(tenant: Tenant, body: object, headers: Record<string, string> = {}) {
  return request(h.app)
    .post('/v1/chat/completions')
    .set(tenant.auth)
    .set({ ...ASYNC, ...headers })
    .send(body);
}

const getJob = (tenant: Tenant, id: string) => request(h.app).get(`/v1/jobs/${id}`).set(tenant.auth);

/** Polls the job until it has ended. */
async function ended(tenant: Tenant, id: string) {
  const res = await eventually(async () => {
    const read = await getJob(tenant, id);
    expect(read.status).toBe(200);
    return ['queued', 'in_progress'].includes(read.body.status) ? null : read;
  });
  return res.body;
}

/** Every string, hash and list value under the harness's Redis prefix, as text (the finished BullMQ jobs included). */
async function redisText(): Promise<string> {
  const { redis, config } = h.services;
  const parts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${config.redisPrefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'string') parts.push(String(await redis.get(key)));
      else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
    }
  } while (cursor !== '0');
  return parts.join('\n');
}

/** The job's record in PostgreSQL, as text. */
async function jobRowText(id: string): Promise<string> {
  return JSON.stringify(await h.services.db.asyncJob.findUnique({ where: { id } }));
}

/** What must be equal between a sync answer and the stored one: all but ids, times and measured figures. */
function comparable(body: Record<string, unknown>) {
  const { id: _id, created: _created, metadata, ...rest } = body;
  const { latency: _latency, scores: _scores, ...meta } = metadata as Record<string, unknown>;
  return { ...rest, metadata: meta };
}

describe('POST /v1/chat/completions with Prefer: respond-async', () => {
  it('answers 202 with the queued job, its Location and Preference-Applied; the job ends with the synchronous body', async () => {
    const { tenant } = await space();
    const body = { messages: userMessage('Async, please'), custom_headers: { labels: { team: 'batch' } } };
    const accepted = await submitAsync(tenant, body);
    expect(accepted.status).toBe(202);
    const id = accepted.body.id as string;
    expect(accepted.headers.location).toBe(`/v1/jobs/${id}`);
    expect(accepted.headers['preference-applied']).toBe('respond-async');
    expect(accepted.headers['x-switchyard-log-id']).toBe(id);
    expect(accepted.body).toEqual({
      id,
      object: 'chat.completion.job',
      status: 'queued',
      created_at: expect.any(Number),
      finished_at: null,
      model: null,
      response: null,
      webhook: null,
    });

    const job = await ended(tenant, id);
    const sync = await complete(h, tenant, body);
    expect(sync.status).toBe(200);
    expect(job.status).toBe('completed');
    expect(job.finished_at).toEqual(expect.any(Number));
    expect(job.response.status_code).toBe(200);
    expect(job.response.request_id).toBe(id);
    expect(job.response.body.id).toBe(id);
    expect(comparable(job.response.body)).toEqual(comparable(sync.body));
    // The job's log is the request's log, like any completion's.
    expect((await request(h.app).get(`/v1/logs/${id}`).set(tenant.auth)).status).toBe(200);
  });

  it('stores a failure as the error body the synchronous call answers', async () => {
    const { tenant, models } = await space({ policies: { max_same_model_retries: 0 } });
    script(sim, models.answering, [{ kind: 'status', status: 400 }]);
    const accepted = await submitAsync(tenant, { messages: userMessage('Fail, please') });
    const job = await ended(tenant, accepted.body.id);
    expect(job.status).toBe('failed');
    script(sim, models.answering, [{ kind: 'status', status: 400 }]);
    const sync = await complete(h, tenant, { messages: userMessage('Fail, please') });
    expect(job.response).toEqual({ status_code: sync.status, request_id: accepted.body.id, body: sync.body });
  });

  it('refuses stream: true, and webhook_url without the header, naming the field', async () => {
    const { tenant } = await space();
    const streamed = await submitAsync(tenant, { stream: true, messages: userMessage('x') });
    expect(streamed.status).toBe(400);
    expect(streamed.body.error.param).toBe('stream');
    const sync = await complete(h, tenant, { messages: userMessage('x'), webhook_url: `${receiver.url}/hook` });
    expect(sync.status).toBe(400);
    expect(sync.body.error.param).toBe('webhook_url');
    const badUrl = await submitAsync(tenant, { messages: userMessage('x'), webhook_url: 'ftp://example.com/hook' });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error.param).toBe('webhook_url');
  });

  it('reads the Prefer header as RFC 7240 does: among other preferences, in any case', async () => {
    const { tenant } = await space();
    const res = await submitAsync(tenant, { messages: userMessage('x') }, { Prefer: 'wait=5, Respond-Async' });
    expect(res.status).toBe(202);
  });

  it('is refused at privacy level 3, naming Prefer, whether the Space or the request asks for it', async () => {
    const { tenant } = await space({ policies: { privacy_level: 3 } });
    const bySpace = await submitAsync(tenant, { messages: userMessage('secret') });
    expect(bySpace.status).toBe(400);
    expect(bySpace.body.error.param).toBe('Prefer');
    const other = await space();
    const byRequest = await submitAsync(other.tenant, { messages: userMessage('secret'), custom_headers: { policies: { privacy_level: 3 } } });
    expect(byRequest.status).toBe(400);
    expect(byRequest.body.error.param).toBe('Prefer');
  });

  it('keeps the answer at privacy level 2 for its TTL (the caller asked for it to be kept)', async () => {
    const { tenant } = await space({ policies: { privacy_level: 2 } });
    const accepted = await submitAsync(tenant, { messages: userMessage('Level two') });
    const job = await ended(tenant, accepted.body.id);
    expect(job.status).toBe('completed');
    expect(job.response.body.object).toBe('chat.completion');
    const row = await h.services.db.asyncJob.findUniqueOrThrow({ where: { id: accepted.body.id } });
    const ttlMs = row.expires_at.getTime() - Date.now();
    expect(ttlMs).toBeGreaterThan(0);
    expect(ttlMs).toBeLessThanOrEqual(h.services.config.asyncJobs.resultTtlSeconds * 1000);
  });

  it('drops a kept answer when its Space rises to privacy level 3: the status stays, no text is left in PostgreSQL or Redis', async () => {
    const { tenant } = await space({ policies: { privacy_level: 2 } });
    const prompt = `Account ${randomUUID()}`;
    const accepted = await submitAsync(tenant, { messages: userMessage(prompt) });
    // The simulator echoes the prompt, so the kept answer holds it until the rise.
    expect(JSON.stringify((await ended(tenant, accepted.body.id)).response)).toContain(prompt);
    expect(await jobRowText(accepted.body.id)).toContain(prompt);
    await request(h.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, policies: { privacy_level: 3 } })
      .expect(200);
    const job = (await getJob(tenant, accepted.body.id)).body;
    expect(job).toMatchObject({ status: 'completed', response: null });
    expect(await jobRowText(accepted.body.id)).not.toContain(prompt);
    expect(await redisText()).not.toContain(prompt);
  });

  it('replays the same 202 and job for a repeated Idempotency-Key, and runs once', async () => {
    const { tenant } = await space();
    const key = randomUUID();
    const body = { messages: userMessage('Once, async') };
    const first = await submitAsync(tenant, body, { 'Idempotency-Key': key });
    const second = await submitAsync(tenant, body, { 'Idempotency-Key': key });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers.location).toBe(first.headers.location);
    // The same key with the same body but synchronous is another request.
    const sync = await complete(h, tenant, body).set('Idempotency-Key', key);
    expect(sync.status).toBe(422);
    await ended(tenant, first.body.id);
    expect(await h.services.db.log.count({ where: { app_id: tenant.app_id, parent_id: null } })).toBe(1);
  });

  it('replays the 202 at privacy level 2 too: the accepted job holds no text of the conversation', async () => {
    const { tenant } = await space({ policies: { privacy_level: 2 } });
    const key = randomUUID();
    const prompt = `Level two ${randomUUID()}`;
    const first = await submitAsync(tenant, { messages: userMessage(prompt) }, { 'Idempotency-Key': key });
    const second = await submitAsync(tenant, { messages: userMessage(prompt) }, { 'Idempotency-Key': key });
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    const kept = await keysMatching(h.services.redis, `${h.services.keySpace.space(tenant.app_id)}:idempotency:*`);
    const values = await Promise.all(kept.map((k) => h.services.redis.hgetall(k).catch(() => ({}))));
    expect(JSON.stringify(values)).not.toContain(prompt);
    await ended(tenant, first.body.id);
  });
});

describe('GET /v1/jobs/{id} and POST /v1/jobs/{id}/cancel', () => {
  it("answers 404 for another organization's job, and for an unknown one", async () => {
    const { tenant } = await space();
    const other = await space();
    const accepted = await submitAsync(tenant, { messages: userMessage('Mine') });
    expect((await getJob(other.tenant, accepted.body.id)).status).toBe(404);
    expect((await request(h.app).post(`/v1/jobs/${accepted.body.id}/cancel`).set(other.tenant.auth)).status).toBe(404);
    expect((await getJob(tenant, randomUUID())).status).toBe(404);
    await ended(tenant, accepted.body.id);
  });

  it('cancels a running job: it stays cancelled, and cancelling again answers 409', async () => {
    const { tenant, models } = await space();
    script(sim, models.answering, [{ kind: 'hang' }]);
    const accepted = await submitAsync(tenant, { messages: userMessage('Slowly') });
    const id = accepted.body.id as string;
    await eventually(async () => ((await getJob(tenant, id)).body.status === 'in_progress' ? true : null));
    const cancelled = await request(h.app).post(`/v1/jobs/${id}/cancel`).set(tenant.auth);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(cancelled.body.response).toBeNull();
    // The worker stops it (its log says 499) and the job stays cancelled.
    await eventually(async () => (await h.services.db.log.findFirst({ where: { id, status_code: 499 } })) ?? null);
    expect((await getJob(tenant, id)).body.status).toBe('cancelled');
    const again = await request(h.app).post(`/v1/jobs/${id}/cancel`).set(tenant.auth);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state_transition');
  });
});

describe('webhooks', () => {
  const box = () => {
    const opened = secretBoxFor(secretKeys);
    if (!opened) throw new Error('no box');
    return opened;
  };
  const deliveriesTo = (path: string) => receiver.received.filter((r) => r.path === path);

  it("delivers the ended job to the Space's webhook, signed with the secret shown once", async () => {
    const { tenant } = await space();
    const path = `/space-${randomUUID()}`;
    const set = await request(h.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, settings: { webhook: { url: `${receiver.url}${path}` } } });
    expect(set.status).toBe(200);
    const shown = set.body.main.app.settings.webhook;
    expect(shown).toEqual({ url: `${receiver.url}${path}`, has_secret: true, secret: expect.stringMatching(/^whsec_/) });
    const read = await request(h.app).get(`/v1/apps/${tenant.app_id}`).set(tenant.auth);
    expect(read.body.app.settings.webhook).toEqual({ url: `${receiver.url}${path}`, has_secret: true });

    const accepted = await submitAsync(tenant, { messages: userMessage('Call me back') });
    const delivery = await eventually(() => deliveriesTo(path)[0]);
    const event = new Webhook(shown.secret as string).verify(delivery.body, delivery.headers as Record<string, string>) as {
      type: string;
      data: { id: string; response: { body: { object: string } } };
    };
    expect(delivery.headers['webhook-id']).toBe(`msg_${accepted.body.id}`);
    expect(event.type).toBe('chat.completion.job.completed');
    expect(event.data.id).toBe(accepted.body.id);
    expect(event.data.response.body.object).toBe('chat.completion');
    const job = await eventually(async () => {
      const res = await getJob(tenant, accepted.body.id);
      return res.body.webhook?.status === 'delivered' ? res.body : null;
    });
    expect(job.webhook).toMatchObject({ url: `${receiver.url}${path}`, attempts: 1, last_status_code: 200 });
    expect(event.data.response).toEqual(job.response);
  });

  it("signs a request's own webhook_url with a Space secret created for it", async () => {
    const { tenant } = await space();
    const path = `/request-${randomUUID()}`;
    const accepted = await submitAsync(tenant, { messages: userMessage('Hook'), webhook_url: `${receiver.url}${path}` });
    expect(accepted.body.webhook).toMatchObject({ url: `${receiver.url}${path}`, status: 'pending', attempts: 0 });
    const delivery = await eventually(() => deliveriesTo(path)[0]);
    const sealed = await h.services.db.spaceSecret.findUniqueOrThrow({ where: { app_id_name: { app_id: tenant.app_id, name: 'webhook.secret' } } });
    const secret = box().open(sealed.sealed, `${tenant.app_id}\0webhook.secret`);
    expect(() => new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(delivery.body, delivery.headers as Record<string, string>)).toThrow();
  });

  it('retries after a 500, then delivers', async () => {
    const { tenant } = await space();
    const path = `/retry-${randomUUID()}`;
    receiver.answerWith([500]);
    const accepted = await submitAsync(tenant, { messages: userMessage('Retry'), webhook_url: `${receiver.url}${path}` });
    const job = await eventually(async () => {
      const res = await getJob(tenant, accepted.body.id);
      return res.body.webhook?.status === 'delivered' ? res.body : null;
    });
    expect(job.webhook).toMatchObject({ attempts: 2, last_status_code: 200, last_error: null });
    const deliveries = deliveriesTo(path);
    expect(deliveries).toHaveLength(2);
    expect(deliveries[1]?.headers['webhook-id']).toBe(deliveries[0]?.headers['webhook-id']);
  });

  it('refuses a private address that SSRF_ALLOWED_HOSTS does not allow, without retrying', async () => {
    const { tenant } = await space();
    const accepted = await submitAsync(tenant, { messages: userMessage('Internal'), webhook_url: `${forbidden.url}/hook` });
    const job = await eventually(async () => {
      const res = await getJob(tenant, accepted.body.id);
      return res.body.webhook?.status === 'failed' ? res.body : null;
    });
    expect(job.webhook.attempts).toBe(1);
    expect(job.webhook.last_error).toContain('refused');
    await sleep(500);
    expect(forbidden.received).toHaveLength(0);
  });

  it("is not copied to a sandbox: the sandbox never calls the main Space's receiver", async () => {
    const { tenant } = await space();
    await request(h.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, settings: { webhook: { url: `${receiver.url}/main` } } })
      .expect(200);
    await request(h.app).post(`/v1/apps/${tenant.app_id}/sandbox`).set(tenant.auth).expect(202);
    const sandboxId = await eventually(
      async () => (await h.services.db.app.findFirst({ where: { sandbox_of: tenant.app_id, sandbox_status: 'none' } }))?.id,
      10_000,
    );
    await eventually(
      async () => ((await h.services.db.app.findUnique({ where: { id: tenant.app_id } }))?.sandbox_status === 'up_to_date' ? true : null),
      10_000,
    );
    const sandbox = await request(h.app).get(`/v1/apps/${sandboxId}`).set(tenant.auth);
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.app.settings).not.toHaveProperty('webhook');
  });

  it('rotates the secret on request and removes the webhook with null', async () => {
    const { tenant } = await space();
    const update = (webhook: unknown) => request(h.app).put('/v1/apps/update').set(tenant.auth).send({ id: tenant.app_id, settings: { webhook } });
    const first = await update({ url: `${receiver.url}/a` });
    const kept = await update({ url: `${receiver.url}/b` });
    expect(kept.body.main.app.settings.webhook).toEqual({ url: `${receiver.url}/b`, has_secret: true });
    const rotated = await update({ rotate_secret: true });
    expect(rotated.body.main.app.settings.webhook.secret).toMatch(/^whsec_/);
    expect(rotated.body.main.app.settings.webhook.secret).not.toBe(first.body.main.app.settings.webhook.secret);
    const given = await update({ secret: 'whsec_short' });
    expect(given.status).toBe(400);
    expect(given.body.error.param).toBe('settings.webhook.secret');
    const removed = await update(null);
    expect(removed.body.main.app.settings.webhook).toBeUndefined();
    expect(await h.services.db.spaceSecret.count({ where: { app_id: tenant.app_id } })).toBe(0);
  });
});

describe('without PLUGIN_SECRETS_KEY', () => {
  let bare: TestContext;
  beforeAll(() => {
    bare = createTestContext({ secrets: { keys: null } }, { plugins: { secrets: null } });
  });
  afterAll(() => bare.close());

  it('refuses webhooks, which could not be signed, naming the field', async () => {
    const tenant = await bare.tenant();
    const setting = await request(bare.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, settings: { webhook: { url: `${receiver.url}/x` } } });
    expect(setting.status).toBe(400);
    expect(setting.body.error.param).toBe('settings.webhook');
    const async = await request(bare.app)
      .post('/v1/chat/completions')
      .set(tenant.auth)
      .set(ASYNC)
      .send({ messages: userMessage('x'), webhook_url: `${receiver.url}/x` });
    expect(async.status).toBe(400);
    expect(async.body.error.param).toBe('webhook_url');
  });
});

describe('result TTL', () => {
  let short: CompletionsHarness;
  beforeAll(() => {
    short = startCompletionsHarness(asyncConfig({ resultTtlSeconds: 1 }));
  });
  afterAll(() => short.close());

  it('forgets a job once ASYNC_RESULT_TTL_SECONDS have passed since it ended', async () => {
    const { tenant } = await isolatedSpace(short, { models: [{ name: 'answering' }] });
    const accepted = await request(short.app)
      .post('/v1/chat/completions')
      .set(tenant.auth)
      .set(ASYNC)
      .send({ messages: userMessage('Soon gone') });
    const done = await eventually(async () => {
      const res = await request(short.app).get(`/v1/jobs/${accepted.body.id}`).set(tenant.auth);
      return res.body.status === 'completed' ? res : null;
    });
    expect(done.status).toBe(200);
    await eventually(async () => ((await request(short.app).get(`/v1/jobs/${accepted.body.id}`).set(tenant.auth)).status === 404 ? true : null));
  });
});
