import request from 'supertest';
import { callsTo, complete, isolatedSpace, userMessage } from '../helpers/completion-fixtures';
import { useSimulatedHarness } from '../helpers/completions';

/**
 * One rule for unknown top-level fields on every API: refused with 400 `unknown_field` naming the field,
 * except the provider fields a chat completion forwards (built in, or listed by the Space's
 * `settings.forward_fields`), which reach OpenAI-compatible upstreams as sent. Switchyard's own fields
 * never do.
 */
const env = useSimulatedHarness();

const UNKNOWN = (param: string) => ({ code: 'unknown_field', type: 'invalid_request_error', param });

describe('chat completions', () => {
  it("refuse a field that is neither Switchyard's nor forwarded, before anything runs", async () => {
    const { tenant, models } = await isolatedSpace(env.h, { models: [{ name: 'plain' }] });
    for (const field of ['colour', 'app_id', 'request_id']) {
      const res = await complete(env.h, tenant, { messages: userMessage('Hi'), [field]: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject(UNKNOWN(field));
    }
    expect(callsTo(env.sim, models.plain)).toHaveLength(0);
  });

  it("forward the built-in provider fields as sent, and never Switchyard's own", async () => {
    const { tenant, models } = await isolatedSpace(env.h, { models: [{ name: 'open' }] });
    const res = await complete(env.h, tenant, {
      messages: userMessage('Hi'),
      top_k: 40,
      repetition_penalty: 1.1,
      parallel_tool_calls: false,
      plugins: [],
      custom_headers: { labels: { team: 'a' } },
    });
    expect(res.status).toBe(200);
    const [call] = callsTo(env.sim, models.open);
    expect(call?.body).toMatchObject({ top_k: 40, repetition_penalty: 1.1, parallel_tool_calls: false });
    expect(call?.body).not.toHaveProperty('plugins');
    expect(call?.body).not.toHaveProperty('custom_headers');
  });

  it("forward a Space's own fields once it lists them, and refuse listing a field Switchyard reads", async () => {
    const { tenant, models } = await isolatedSpace(env.h, { models: [{ name: 'guided' }] });
    const before = await complete(env.h, tenant, { messages: userMessage('Hi'), guided_json: { type: 'object' } });
    expect(before.body.error).toMatchObject(UNKNOWN('guided_json'));

    const own = await request(env.h.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, settings: { forward_fields: ['guided_json', 'model'] } });
    expect(own.status).toBe(400);
    expect(own.body.error).toMatchObject({ code: 'invalid_value', param: 'settings.forward_fields' });
    const listed = await request(env.h.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, settings: { forward_fields: ['guided_json'] } });
    expect(listed.status).toBe(200);
    expect(listed.body.main.app.settings.forward_fields).toEqual(['guided_json']);
    // The API and the worker cache a Space for a moment.
    await new Promise((resolve) => setTimeout(resolve, 2500));

    const after = await complete(env.h, tenant, { messages: userMessage('Hi'), guided_json: { type: 'object' } });
    expect(after.status).toBe(200);
    expect(callsTo(env.sim, models.guided).at(-1)?.body).toMatchObject({ guided_json: { type: 'object' } });

    const cleared = await request(env.h.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, settings: { forward_fields: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.main.app.settings).not.toHaveProperty('forward_fields');
  });
});

describe('the other APIs', () => {
  it('embeddings refuse an unknown field', async () => {
    const tenant = await env.h.tenant();
    const res = await request(env.h.app).post('/v1/embeddings').set(tenant.auth).send({ input: 'hello', colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject(UNKNOWN('colour'));
  });

  it("messages refuse an unknown field, in Anthropic's shape", async () => {
    const tenant = await env.h.tenant();
    const res = await request(env.h.app)
      .post('/v1/messages')
      .set({ ...tenant.auth, 'anthropic-version': '2023-06-01' })
      .send({ model: 'switchyard', max_tokens: 10, messages: userMessage('Hi'), plugins: ['web-search'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining("'plugins'") } });
  });

  it('responses refuse an unknown field', async () => {
    const tenant = await env.h.tenant();
    const res = await request(env.h.app).post('/v1/responses').set(tenant.auth).send({ input: 'Hi', colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject(UNKNOWN('colour'));
  });

  it.each([
    ['/v1/files', 'batch.jsonl', '{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"messages":[{"role":"user","content":"x"}]}}\n'],
    ['/v1/apps/:app/files', 'notes.txt', 'Some notes.'],
  ])('multipart upload to %s refuses an unknown text field', async (path, name, text) => {
    const tenant = await env.h.tenant();
    const res = await request(env.h.app)
      .post(path.replace(':app', tenant.app_id))
      .set(tenant.auth)
      .field('purpose', 'batch')
      .field('expires_after', '3600')
      .attach('file', Buffer.from(text), name);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject(UNKNOWN('expires_after'));
  });
});
