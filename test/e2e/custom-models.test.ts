import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import request from 'supertest';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { logsOf } from '../helpers/completion-fixtures';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import type { Tenant } from '../helpers/test-context';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * Custom models end to end: added through `/v1/custom_models` with the provider simulator as their
 * server (127.0.0.1, allowed by SSRF_ALLOWED_HOSTS as an operator would), switched on in a Space,
 * then called with the official OpenAI SDK by name and through the automatic router.
 */

const CUSTOM_KEY = 'sk-custom-secret-4242';

let sim: Simulator;
let h: CompletionsHarness;
let server: ListeningApp;
let tenant: Tenant;
let client: OpenAI;

function pluginsAllowing(hosts: string[]): Config['plugins'] {
  const base = loadConfig().plugins;
  return { ...base, net: { ...base.net, ssrfAllowedHosts: hosts } };
}

const customBody = (overrides: Record<string, unknown> = {}) => ({
  model: 'acme-llama',
  provider: 'vllm',
  namespace: 'acme/llama-3.1-8b-ft',
  base_url: sim.baseUrls.openai,
  api_key: CUSTOM_KEY,
  prices: { prompt_per_1m: 0.2, completion_per_1m: 0.6 },
  context_window: 32000,
  capabilities: { functions: true, json: true, vision: false, stream: true },
  quality: { overall: 0.99, categories: { chat: 0.99 } },
  ...overrides,
});

const create = (t: Tenant, body: object) => request(h.app).post('/v1/custom_models').set(t.auth).send(body);
const callsToCustom = () => sim.requests.filter((r) => (r.body as { model?: string } | undefined)?.model === 'acme/llama-3.1-8b-ft');

async function activate(t: Tenant, modelId: string, active = true): Promise<void> {
  await request(h.app).put(`/v1/apps/${t.app_id}/models/${modelId}`).set(t.auth).send({ active }).expect(200);
}

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({
    providers: simulatedProviders(sim),
    plugins: pluginsAllowing([new URL(sim.url).hostname]),
    secrets: { keys: { current: randomBytes(32), previous: [] } },
  });
  server = await listenOnLoopback(h.app);
  tenant = await h.tenant();
  client = new OpenAI({ apiKey: tenant.api_key, baseURL: `${server.origin}/v1` });
});
afterAll(async () => {
  await server.close();
  await h.close();
  await sim.close();
});

describe('custom models', () => {
  let modelId: string;

  it("creates one, never echoing the key, and shows it in the Space's custom_model_settings, switched off", async () => {
    const res = await create(tenant, customBody());
    expect(res.status).toBe(201);
    expect(JSON.stringify(res.body)).not.toContain(CUSTOM_KEY);
    expect(res.body).toMatchObject({
      object: 'custom_model',
      model: 'acme-llama',
      provider: 'vllm',
      namespace: 'acme/llama-3.1-8b-ft',
      base_url: sim.baseUrls.openai,
      api_target: sim.baseUrls.openai,
      has_api_key: true,
      org_id: tenant.org_id,
      app_id: null,
      is_public: false,
      context_window: 32000,
      supports_functions: true,
      quality: { overall: 0.99, categories: { chat: 0.99 } },
    });
    expect(res.body.prompt_token_cost).toBeCloseTo(0.2 / 1e6, 15);
    modelId = res.body.id;
    const stored = await h.services.db.model.findUniqueOrThrow({ where: { id: modelId } });
    expect(stored.api_key_sealed).not.toContain(CUSTOM_KEY);

    const listing = await request(h.app).get(`/v1/apps/${tenant.app_id}/models`).set(tenant.auth).expect(200);
    const entry = (listing.body.custom_model_settings as { id: string; active: boolean }[]).find((m) => m.id === modelId);
    expect(entry).toMatchObject({ active: false, model: 'acme-llama' });
    expect(JSON.stringify(listing.body)).not.toContain(CUSTOM_KEY);

    const list = await request(h.app).get('/v1/custom_models').set(tenant.auth).expect(200);
    expect(list.body).toMatchObject({ object: 'list', data: [{ id: modelId, has_api_key: true }] });
  });

  it('is called by name through the OpenAI SDK at its own base URL with its own key, and its prices reach the log', async () => {
    await activate(tenant, modelId);
    sim.reset();
    const completion = await client.chat.completions.create({ model: 'acme-llama', messages: [{ role: 'user', content: 'Hello custom' }] });
    expect(completion.model).toBe('acme-llama');
    expect(completion.choices[0]?.message.content).toBe('Echo: Hello custom');
    const calls = callsToCustom();
    expect(calls).toHaveLength(1);
    expect(calls[0]?.headers.authorization).toBe(`Bearer ${CUSTOM_KEY}`);

    const { parent } = await logsOf(h, completion.id);
    const usage = completion.usage ?? { prompt_tokens: 0, completion_tokens: 0 };
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(parent.model_id).toBe(modelId);
    expect(parent.prompt_tokens_cost).toBeCloseTo((usage.prompt_tokens * 0.2) / 1e6, 12);
    expect(parent.completion_tokens_cost).toBeCloseTo((usage.completion_tokens * 0.6) / 1e6, 12);
    const log = await request(h.app).get(`/v1/logs/${completion.id}?include_children=true`).set(tenant.auth).expect(200);
    expect(JSON.stringify(log.body)).not.toContain(CUSTOM_KEY);
  });

  it('streams by name', async () => {
    const stream = await client.chat.completions.create({ model: 'acme-llama', stream: true, messages: [{ role: 'user', content: 'Stream please' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Echo: Stream please');
  });

  it('is chosen by the automatic router when it scores best', async () => {
    sim.reset();
    const completion = await client.chat.completions.create({ model: 'switchyard', messages: [{ role: 'user', content: 'Hi, how are you today?' }] });
    expect(completion.model).toBe('acme-llama');
    expect(callsToCustom()).toHaveLength(1);
    expect(callsToCustom()[0]?.headers.authorization).toBe(`Bearer ${CUSTOM_KEY}`);
  });

  it('answers another organization with 404 on every path, and refuses it the model by name', async () => {
    const other = await h.tenant();
    for (const method of ['get', 'patch', 'delete'] as const) {
      const res = await request(h.app)
        [method](`/v1/custom_models/${modelId}`)
        .set(other.auth)
        .send(method === 'patch' ? { description: 'x' } : undefined);
      expect(res.status).toBe(404);
    }
    expect((await request(h.app).get('/v1/custom_models').set(other.auth)).body.data).toEqual([]);
    const put = await request(h.app).put(`/v1/apps/${other.app_id}/models/${modelId}`).set(other.auth).send({ active: true });
    expect(put.status).toBe(404);
    const res = await request(h.app)
      .post('/v1/chat/completions')
      .set(other.auth)
      .send({ model: 'acme-llama', messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(404);
  });

  it('changes with PATCH (the key replaced, never shown) and the next request uses the change', async () => {
    const res = await request(h.app)
      .patch(`/v1/custom_models/${modelId}`)
      .set(tenant.auth)
      .send({ api_key: 'sk-rotated-777', prices: { prompt_per_1m: 1, completion_per_1m: 2 } });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('sk-rotated-777');
    expect(res.body.completion_token_cost).toBeCloseTo(2 / 1e6, 15);
    sim.reset();
    await client.chat.completions.create({ model: 'acme-llama', messages: [{ role: 'user', content: 'after the change' }] });
    expect(callsToCustom()[0]?.headers.authorization).toBe('Bearer sk-rotated-777');
  });

  it('checks a new base URL on PATCH, and removes the key with api_key: null', async () => {
    const refused = await request(h.app).patch(`/v1/custom_models/${modelId}`).set(tenant.auth).send({ base_url: 'http://192.168.1.10:8000/v1' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('base_url');
    const res = await request(h.app).patch(`/v1/custom_models/${modelId}`).set(tenant.auth).send({ api_key: null });
    expect(res.body).toMatchObject({ has_api_key: false, base_url: sim.baseUrls.openai });
    sim.reset();
    await client.chat.completions.create({ model: 'acme-llama', messages: [{ role: 'user', content: 'no key now' }] }).catch(() => undefined);
    expect(callsToCustom()[0]?.headers.authorization).toBeUndefined();
  });

  it('copies a quality profile with `like`', async () => {
    const res = await create(tenant, customBody({ model: 'acme-mini', namespace: 'mini', api_key: undefined, quality: { like: 'gpt-4.1-mini' } }));
    expect(res.status).toBe(201);
    const source = await h.services.db.model.findFirstOrThrow({ where: { model: 'gpt-4.1-mini', org_id: null } });
    expect(res.body.quality).toEqual(source.quality_profile);
    expect(res.body.has_api_key).toBe(false);
  });

  it('deletes one: gone from the Space, by name a 404', async () => {
    const created = await create(tenant, customBody({ model: 'acme-temp', namespace: 'temp' }));
    await activate(tenant, created.body.id);
    const res = await request(h.app).delete(`/v1/custom_models/${created.body.id}`).set(tenant.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.body.id, object: 'custom_model', deleted: true });
    expect((await request(h.app).get(`/v1/custom_models/${created.body.id}`).set(tenant.auth)).status).toBe(404);
    const listing = await request(h.app).get(`/v1/apps/${tenant.app_id}/models`).set(tenant.auth).expect(200);
    expect((listing.body.custom_model_settings as { id: string }[]).map((m) => m.id)).not.toContain(created.body.id);
  });
});

describe('custom model validation', () => {
  it.each([
    ['base_url', { base_url: 'http://10.0.0.7:8000/v1' }, /private/],
    ['base_url', { base_url: 'http://169.254.169.254/latest' }, /metadata/],
    ['base_url', { base_url: 'http://[::1]:11434/v1' }, /loopback/],
    ['base_url', { base_url: 'file:///etc/passwd' }, /http or https/],
    ['base_url', { base_url: 'http://user:pw@example.com/v1' }, /credentials/],
  ])('refuses %s %j (SSRF rules)', async (param, overrides, message) => {
    const res = await create(tenant, customBody({ model: `x-${Math.random()}`.slice(0, 20), ...overrides }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ param });
    expect(res.body.error.message).toMatch(message);
  });

  it('refuses a host name resolving to loopback when only the address 127.0.0.1 is allowed (the allowlist matches names as written)', async () => {
    const res = await create(tenant, customBody({ model: 'acme-local', base_url: 'http://localhost:11434/v1' }));
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('base_url');
    expect(res.body.error.message).toMatch(/SSRF_ALLOWED_HOSTS/);
  });

  it.each([
    ['model', { model: 'has space' }],
    ['context_window', { context_window: 0 }],
    ['prices.prompt_per_1m', { prices: { prompt_per_1m: -1, completion_per_1m: 1 } }],
    ['provider', { provider: 'anthropic' }],
    ['quality.like', { quality: { like: 'no-such-model' } }],
    ['namespace', { namespace: undefined }],
  ])('answers 400 naming %s', async (param, overrides) => {
    const res = await create(tenant, customBody({ model: 'valid-name', ...overrides }));
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  it('refuses a name the organization already uses (catalog or custom) with 409, and the automatic model name with 400', async () => {
    expect((await create(tenant, customBody({ model: 'gpt-4.1-mini' }))).status).toBe(409);
    expect((await create(tenant, customBody())).status).toBe(409);
    const auto = await create(tenant, customBody({ model: 'switchyard' }));
    expect(auto.status).toBe(400);
    expect(auto.body.error.param).toBe('model');
  });

  it('lets a viewer read but not write', async () => {
    const viewer = await h.tenant({ role: 'viewer' });
    expect((await request(h.app).get('/v1/custom_models').set(viewer.auth)).status).toBe(200);
    expect((await create(viewer, customBody({ model: 'viewer-model' }))).status).toBe(403);
  });
});
