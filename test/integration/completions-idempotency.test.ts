import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { setModels, useSimulatedHarness } from '../helpers/completions';
import { callsTo, isolatedSpace, script, sseData, times, userMessage, type IsolatedSpace } from '../helpers/completion-fixtures';
import type { Tenant } from '../helpers/test-context';
import { createOrgKey } from '../../src/services/tenancy/key-admin';
import { keysMatching } from '../helpers/redis-keys';

const env = useSimulatedHarness();

function spaceAt(privacyLevel = 1): Promise<IsolatedSpace<'answering'>> {
  return isolatedSpace(env.h, { models: [{ name: 'answering', gdpr: true }], update: { policies: { privacy_level: privacyLevel } } });
}

/** A completion carrying an Idempotency-Key. */
function idempotent(tenant: Tenant, key: string, body: object) {
  return request(env.h.app)
    .post('/v1/chat/completions')
    .set(tenant.auth)
    .set('Idempotency-Key', key)
    .send({ stream: false, ...body });
}

/** The same, streamed, with the SSE body as raw text. */
async function idempotentStream(tenant: Tenant, key: string, body: object) {
  const res = await request(env.h.app)
    .post('/v1/chat/completions')
    .set(tenant.auth)
    .set('Idempotency-Key', key)
    .send({ ...body, stream: true })
    .buffer(true)
    .parse((response, done) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => done(null, text));
    });
  return { status: res.status, headers: res.headers, text: res.body as string };
}

const parentLogs = (tenant: Tenant) => env.h.services.db.log.count({ where: { app_id: tenant.app_id, parent_id: null } });

/** Every field and value of the Space's idempotency records, as text. */
async function idempotencyDump(tenant: Tenant): Promise<{ keys: string[]; text: string }> {
  const keys = await keysMatching(env.h.services.redis, `${env.h.services.keySpace.space(tenant.app_id)}:idempotency:${tenant.org_id}:*`);
  const values = await Promise.all(keys.map((key) => env.h.services.redis.hgetall(key)));
  return { keys, text: JSON.stringify(values) + keys.join(' ') };
}

const secretPrompt = () => `My card number is ${randomUUID()}, please check it.`;

describe('Idempotency-Key: replay', () => {
  it('answers a repeat with the stored answer, the same log id and Idempotent-Replayed, calling upstream once', async () => {
    const { tenant, models } = await spaceAt();
    const key = randomUUID();
    const first = await idempotent(tenant, key, { messages: userMessage('Hello there'), temperature: 0.2 }).expect(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same body with its keys in another order is the same request.
    const repeat = await request(env.h.app)
      .post('/v1/chat/completions')
      .set(tenant.auth)
      .set('Idempotency-Key', key)
      .set('Content-Type', 'application/json')
      .send(`{"temperature":0.2,"messages":[{"content":"Hello there","role":"user"}],"stream":false}`)
      .expect(200);
    expect(repeat.body).toEqual(first.body);
    expect(repeat.body.id).toBe(first.body.id);
    expect(repeat.headers['x-switchyard-log-id']).toBe(first.headers['x-switchyard-log-id']);
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(callsTo(env.sim, models.answering)).toHaveLength(1);
    expect(await parentLogs(tenant)).toBe(1);
  });

  it('replays a streamed answer as the same stream', async () => {
    const { tenant, models } = await spaceAt();
    const key = randomUUID();
    const first = await idempotentStream(tenant, key, { messages: userMessage('Stream me a story') });
    expect(first.status).toBe(200);
    expect(sseData(first.text).at(-1)).toBe('[DONE]');
    const repeat = await idempotentStream(tenant, key, { messages: userMessage('Stream me a story') });
    expect(repeat.status).toBe(200);
    expect(repeat.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(repeat.headers['x-switchyard-log-id']).toBe(first.headers['x-switchyard-log-id']);
    expect(repeat.text).toBe(first.text);
    expect(callsTo(env.sim, models.answering)).toHaveLength(1);
  });

  it('answers 422 for the same key with another body or other feature flags', async () => {
    const { tenant, models } = await spaceAt();
    const key = randomUUID();
    await idempotent(tenant, key, { messages: userMessage('First question') }).expect(200);
    const otherBody = await idempotent(tenant, key, { messages: userMessage('Second question') });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toEqual({
      error: {
        message: 'This Idempotency-Key was already used for a different request (body or Service-Feature-Flags); use a new key for a new request.',
        type: 'invalid_request_error',
        code: 'idempotency_key_reused',
        param: 'Idempotency-Key',
      },
    });
    const otherFlags = await idempotent(tenant, key, { messages: userMessage('First question') }).set('Service-Feature-Flags', '{"smart_learn":"true"}');
    expect(otherFlags.status).toBe(422);
    expect(callsTo(env.sim, models.answering)).toHaveLength(1);
  });

  it('answers 409 with Retry-After while the first request runs, then replays it', async () => {
    const tenant = await env.h.tenant();
    await setModels(env.h.app, tenant, { 'test-slow': true });
    const key = randomUUID();
    const body = { model: 'test-slow', messages: userMessage('Take your time') };
    const first = idempotent(tenant, key, body).then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const concurrent = await idempotent(tenant, key, body);
    expect(concurrent.status).toBe(409);
    expect(concurrent.headers['retry-after']).toBe('1');
    expect(concurrent.body).toEqual({
      error: {
        message: 'A request with this Idempotency-Key is still running; repeat it once it has finished to get its answer.',
        type: 'conflict_error',
        code: 'idempotency_request_in_progress',
        param: 'Idempotency-Key',
      },
    });
    const done = await first;
    expect(done.status).toBe(200);
    const repeat = await idempotent(tenant, key, body).expect(200);
    expect(repeat.body).toEqual(done.body);
    expect(await parentLogs(tenant)).toBe(1);
  });
});

describe('Idempotency-Key: what does not poison the key', () => {
  it('frees the key when the run fails, so the retry runs and is kept', async () => {
    const { tenant, models } = await spaceAt();
    script(env.sim, models.answering, times(3, { kind: 'status', status: 500 }));
    const key = randomUUID();
    const failed = await idempotent(tenant, key, { messages: userMessage('Try me') });
    expect(failed.status).toBe(502);
    const retried = await idempotent(tenant, key, { messages: userMessage('Try me') }).expect(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(retried.headers['x-switchyard-log-id']).not.toBe(failed.headers['x-switchyard-log-id']);
    const repeat = await idempotent(tenant, key, { messages: userMessage('Try me') }).expect(200);
    expect(repeat.body).toEqual(retried.body);
  });

  it('frees the key when the client leaves before the answer', async () => {
    const tenant = await env.h.tenant();
    await setModels(env.h.app, tenant, { 'test-slow': true });
    const key = randomUUID();
    const body = { model: 'test-slow', messages: userMessage('I will not wait') };
    await expect(idempotent(tenant, key, body).timeout(300)).rejects.toThrow(/Timeout/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const retried = await idempotent(tenant, key, body).expect(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('frees the key when the upstream refuses the request (400)', async () => {
    const { tenant, models } = await spaceAt();
    script(env.sim, models.answering, [{ kind: 'status', status: 400 }]);
    const key = randomUUID();
    expect((await idempotent(tenant, key, { messages: userMessage('Hm') })).status).toBe(400);
    await idempotent(tenant, key, { messages: userMessage('Hm') }).expect(200);
  });

  it('claims nothing for a request refused before it runs (rate limit, bad body, bad key)', async () => {
    const { tenant } = await spaceAt();
    await env.h.services.db.app.update({ where: { id: tenant.app_id }, data: { rate_limit: 1 } });
    await env.h.services.spaceVersions.bump([tenant.app_id]);
    await idempotent(tenant, randomUUID(), { messages: userMessage('uses the minute') }).expect(200);
    const records = async () => (await idempotencyDump(tenant)).keys.length;
    expect(await records()).toBe(1);
    const key = randomUUID();
    const limited = await idempotent(tenant, key, { messages: userMessage('Later') });
    expect(limited.status).toBe(429);
    expect((await idempotent(tenant, key, { messages: 'not a list' })).status).toBe(400);
    const other = { Authorization: 'Bearer sy-not-a-key' };
    expect(
      (
        await request(env.h.app)
          .post('/v1/chat/completions')
          .set(other)
          .set('Idempotency-Key', key)
          .send({ messages: userMessage('Later') })
      ).status,
    ).toBe(401);
    expect(await records()).toBe(1);
    await env.h.services.db.app.update({ where: { id: tenant.app_id }, data: { rate_limit: 0 } });
    await env.h.services.spaceVersions.bump([tenant.app_id]);
    await idempotent(tenant, key, { messages: userMessage('Later') }).expect(200);
  });

  it('answers 400 naming the header when the key is empty, too long or has spaces', async () => {
    const tenant = await env.h.tenant();
    for (const bad of ['', 'a'.repeat(256), 'two words', 'caf\u00e9']) {
      const res = await request(env.h.app)
        .post('/v1/chat/completions')
        .set(tenant.auth)
        .set('Idempotency-Key', bad)
        .send({ messages: userMessage('x') });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: {
          message: "Invalid 'Idempotency-Key' header: 1 to 255 printable ASCII characters, without spaces.",
          type: 'invalid_request_error',
          code: 'invalid_value',
          param: 'Idempotency-Key',
        },
      });
    }
  });
});

describe('Idempotency-Key: scope', () => {
  it("never replays another organization's answer, nor another Space's", async () => {
    const a = await spaceAt();
    const b = await spaceAt();
    const key = randomUUID();
    const body = { messages: userMessage('Same words everywhere') };
    const fromA = await idempotent(a.tenant, key, body).expect(200);
    const fromB = await idempotent(b.tenant, key, body).expect(200);
    expect(fromB.headers['idempotent-replayed']).toBeUndefined();
    expect(fromB.body.id).not.toBe(fromA.body.id);
    expect(callsTo(env.sim, b.models.answering)).toHaveLength(1);
    // A second Space of organization A, with a key of its own: its own scope too.
    const created = await request(env.h.app)
      .post('/v1/apps')
      .set(a.tenant.auth)
      .send({ name: `second ${randomUUID()}` })
      .expect(201);
    const siblingId = created.body.app.id as string;
    await env.h.services.db.appModel.updateMany({ where: { app_id: siblingId }, data: { active: false } });
    await env.h.services.db.appModel.create({ data: { app_id: siblingId, model_id: a.models.answering.id, active: true } });
    const siblingKey = await createOrgKey(env.h.services.db, { orgId: a.tenant.org_id, role: 'owner', appId: siblingId });
    const sibling = { ...a.tenant, app_id: siblingId, api_key: siblingKey.api_key, auth: { Authorization: `Bearer ${siblingKey.api_key}` } };
    const fromSibling = await idempotent(sibling, key, body).expect(200);
    expect(fromSibling.headers['idempotent-replayed']).toBeUndefined();
    expect(fromSibling.body.id).not.toBe(fromA.body.id);
    const again = await idempotent(a.tenant, key, body).expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(fromA.body.id);
  });
});

describe('Idempotency-Key: privacy', () => {
  it.each([2, 3])('keeps no text at privacy level %i, and a repeat answers 409 saying so', async (level) => {
    const { tenant, models } = await spaceAt(level);
    const key = randomUUID();
    const prompt = secretPrompt();
    const first = await idempotent(tenant, key, { messages: userMessage(prompt) }).expect(200);
    const streamed = secretPrompt();
    const streamKey = randomUUID();
    expect((await idempotentStream(tenant, streamKey, { messages: userMessage(streamed) })).status).toBe(200);
    const repeat = await idempotent(tenant, key, { messages: userMessage(prompt) });
    expect(repeat.status).toBe(409);
    expect(repeat.headers['x-switchyard-log-id']).toBe(first.headers['x-switchyard-log-id']);
    expect(repeat.body).toEqual({
      error: {
        message:
          'The request with this Idempotency-Key already completed, but its answer is not kept at privacy level 2 or 3, where no request or response text rests in Redis; send a new key to run it again.',
        type: 'conflict_error',
        code: 'idempotency_answer_not_kept',
        param: 'Idempotency-Key',
      },
    });
    expect((await idempotentStream(tenant, streamKey, { messages: userMessage(streamed) })).status).toBe(409);
    expect(callsTo(env.sim, models.answering)).toHaveLength(2);
    const dump = await idempotencyDump(tenant);
    expect(dump.keys).toHaveLength(2);
    for (const text of [prompt, streamed, key, streamKey, 'Echo']) expect(dump.text).not.toContain(text);
  });

  it('keeps no text when the request itself raises its privacy level', async () => {
    const { tenant } = await spaceAt(1);
    const key = randomUUID();
    const prompt = secretPrompt();
    const body = { messages: userMessage(prompt), custom_headers: { policies: { privacy_level: 2 } } };
    await idempotent(tenant, key, body).expect(200);
    expect((await idempotent(tenant, key, body)).status).toBe(409);
    expect((await idempotencyDump(tenant)).text).not.toContain(prompt);
  });

  it.each([2, 3])('drops a kept answer as soon as its Space moves to privacy level %i', async (level) => {
    const { tenant } = await spaceAt(1);
    const key = randomUUID();
    const prompt = secretPrompt();
    const first = await idempotent(tenant, key, { messages: userMessage(prompt) }).expect(200);
    expect((await idempotencyDump(tenant)).text).toContain(prompt);
    await request(env.h.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, policies: { privacy_level: level } })
      .expect(200);
    // Gone with the update's answer, before any repeat comes to look.
    const dump = await idempotencyDump(tenant);
    expect(dump.keys).toHaveLength(1);
    expect(dump.text).not.toContain(prompt);
    expect(dump.text).not.toContain('Echo');
    const repeat = await idempotent(tenant, key, { messages: userMessage(prompt) });
    expect(repeat.status).toBe(409);
    expect(repeat.body.error.code).toBe('idempotency_answer_not_kept');
    expect(repeat.headers['x-switchyard-log-id']).toBe(first.headers['x-switchyard-log-id']);
  });

  it('keeps no answer of a request that was running when its Space moved to privacy level 3', async () => {
    const tenant = await env.h.tenant();
    await setModels(env.h.app, tenant, { 'test-slow': true });
    const key = randomUUID();
    const prompt = secretPrompt();
    const body = { model: 'test-slow', messages: userMessage(prompt) };
    const running = idempotent(tenant, key, body).then((res) => res);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await request(env.h.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, policies: { privacy_level: 3 } })
      .expect(200);
    expect((await running).status).toBe(200);
    expect((await idempotencyDump(tenant)).text).not.toContain(prompt);
    const repeat = await idempotent(tenant, key, body);
    expect(repeat.status).toBe(409);
    expect(repeat.body.error.code).toBe('idempotency_answer_not_kept');
  });

  it('refuses a repeat, as it would refuse a run, once the Space is deactivated', async () => {
    const { tenant } = await spaceAt(1);
    const key = randomUUID();
    await idempotent(tenant, key, { messages: userMessage('Before the switch-off') }).expect(200);
    await env.h.services.db.app.update({ where: { id: tenant.app_id }, data: { is_active: false } });
    await env.h.services.spaceVersions.bump([tenant.app_id]);
    const repeat = await idempotent(tenant, key, { messages: userMessage('Before the switch-off') });
    expect(repeat.status).toBe(403);
    expect(repeat.body.error.code).toBe('space_inactive');
  });
});
