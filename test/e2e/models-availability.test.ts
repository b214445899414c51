import OpenAI from 'openai';
import type { Model } from 'openai/resources/models';
import request from 'supertest';
import { setModels, simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';
import type { Tenant } from '../helpers/test-context';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * Which models can answer, as the official OpenAI SDK sees them: a deployment with OpenAI's key set and
 * Anthropic's not. `GET /v1/models` lists only what can answer now; `?all=true` adds the rest with the
 * reason; a Space's own model list (the console's and the CLI's source) carries the same reason; a
 * mistyped model name gets the closest names back in the error.
 */

type Listed = Model & {
  available: boolean;
  unavailable_reason: { code: string; message: string } | null;
  automatic: boolean;
  pricing: { prompt: number; completion: number } | null;
};

let sim: Simulator;
let h: CompletionsHarness;
let listening: ListeningApp;
let tenant: Tenant;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSimulator();
  const providers = simulatedProviders(sim);
  h = startCompletionsHarness({ providers: { ...providers, anthropic: { baseUrl: sim.baseUrls.anthropic } } });
  listening = await listenOnLoopback(h.app);
  tenant = await h.tenant();
  await setModels(h.app, tenant, { 'gpt-4.1-mini': true, 'gpt-4.1-nano': false, 'claude-haiku-4-5': true, 'gemini-2.5-flash': true });
  client = new OpenAI({ apiKey: tenant.api_key, baseURL: `${listening.origin}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await listening.close();
  await h.close();
  await sim.close();
});

async function listAll(query?: Record<string, string>): Promise<Listed[]> {
  const listed: Listed[] = [];
  for await (const model of client.models.list(query ? { query } : undefined)) listed.push(model as Listed);
  return listed;
}

describe('client.models.list()', () => {
  it('lists only the models that can answer now: not those whose provider has no key', async () => {
    const listed = await listAll();
    const ids = listed.map((model) => model.id);
    expect(ids[0]).toBe('switchyard');
    expect(ids).toEqual(expect.arrayContaining(['gpt-4.1-mini', 'gemini-2.5-flash']));
    expect(ids).not.toContain('claude-haiku-4-5');
    expect(ids).not.toContain('gpt-4.1-nano');
    expect(listed.every((model) => model.available && model.unavailable_reason === null)).toBe(true);
    expect(listed.find((model) => model.id === 'gpt-4.1-mini')?.pricing?.prompt).toBeGreaterThan(0);
  });

  it('with all=true, adds the rest with available: false and the reason', async () => {
    const listed = await listAll({ all: 'true' });
    const byId = new Map(listed.map((model) => [model.id, model]));
    expect(byId.get('gpt-4.1-mini')).toMatchObject({ available: true, unavailable_reason: null });
    expect(byId.get('claude-haiku-4-5')).toMatchObject({
      object: 'model',
      available: false,
      unavailable_reason: { code: 'provider_key_missing', message: 'ANTHROPIC_API_KEY is not set' },
    });
    expect(byId.get('gpt-4.1-nano')).toMatchObject({ available: false, unavailable_reason: { code: 'not_active_in_space' } });
    expect(byId.get('claude-haiku-4-5')?.created).toBeGreaterThan(1_600_000_000);
    // Every reason, the one to mend first leading, and whether the model is on in the Space.
    expect(byId.get('claude-haiku-4-5')).toMatchObject({ active: true, unavailable_reasons: [{ code: 'provider_key_missing' }] });
    expect(byId.get('claude-opus-4-5')).toMatchObject({
      active: false,
      available: false,
      unavailable_reason: { code: 'provider_key_missing' },
      unavailable_reasons: [{ code: 'provider_key_missing' }, { code: 'not_active_in_space' }],
    });
    expect(byId.get('gpt-4.1-mini')).toMatchObject({ active: true, unavailable_reasons: [] });
    expect(byId.get('switchyard')).toMatchObject({ automatic: true, active: true, unavailable_reasons: [] });
    // Each model once.
    expect(new Set(listed.map((model) => model.id)).size).toBe(listed.length);
  });

  it('refuses an unknown query value, naming it', async () => {
    const res = await request(h.app).get('/v1/models?all=yes').set(tenant.auth);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('all');
  });

  it('retrieves an unavailable model with its reason, and a typo answers 404 with the closest names', async () => {
    await expect(client.models.retrieve('claude-haiku-4-5')).resolves.toMatchObject({ available: false, unavailable_reason: { code: 'provider_key_missing' } });
    const error = await client.models.retrieve('gpt-4.1-mimi').catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).message).toContain("Did you mean 'gpt-4.1-mini'?");
  });
});

describe('a completion naming a model', () => {
  it('that cannot answer is a 400 giving the reason', async () => {
    const error = await client.chat.completions
      .create({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'Hello' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.code).toBe('model_not_available');
    expect(bad.param).toBe('model');
    expect(bad.message).toContain("Model 'claude-haiku-4-5' is unavailable: ANTHROPIC_API_KEY is not set (provider_key_missing).");
  });

  it('that does not exist is a 404 suggesting the closest names the Space can use', async () => {
    const error = await client.chat.completions.create({ model: 'gpt-41-mini', messages: [{ role: 'user', content: 'Hello' }] }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const missing = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect(missing.code).toBe('not_found');
    expect(missing.message).toBe("404 Model 'gpt-41-mini' does not exist. Did you mean 'gpt-4.1-mini'?");
  });

  it('never suggests a name the Space cannot answer with', async () => {
    const error = await client.chat.completions
      .create({ model: 'claude-haiku-4-6', messages: [{ role: 'user', content: 'Hello' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as Error).message).not.toContain('claude-haiku-4-5');
  });
});

describe("a Space's model list (GET /v1/apps/{app_id}/models)", () => {
  it('gives every model its availability and reason', async () => {
    const res = await request(h.app).get(`/v1/apps/${tenant.app_id}/models`).set(tenant.auth).expect(200);
    const rows = res.body.base_model_settings as {
      model: string;
      active: boolean;
      available: boolean;
      unavailable_reason: { code: string; message: string } | null;
    }[];
    const row = (name: string) => rows.find((r) => r.model === name);
    expect(row('gpt-4.1-mini')).toMatchObject({ active: true, available: true, unavailable_reason: null });
    expect(row('claude-haiku-4-5')).toMatchObject({
      active: true,
      available: false,
      unavailable_reason: { code: 'provider_key_missing', message: 'ANTHROPIC_API_KEY is not set' },
    });
    expect(row('gpt-4.1-nano')).toMatchObject({
      active: false,
      available: false,
      unavailable_reason: { code: 'not_active_in_space', message: 'not switched on in this Space' },
    });
  });

  it('gives the reason in the Space detail too, and in the answer to a switch', async () => {
    const detail = await request(h.app).get(`/v1/apps/${tenant.app_id}`).set(tenant.auth).expect(200);
    const haiku = (detail.body.base_model_settings as { id: string; model: string; unavailable_reason: unknown }[]).find((r) => r.model === 'claude-haiku-4-5');
    expect(haiku?.unavailable_reason).toMatchObject({ code: 'provider_key_missing' });
    const switched = await request(h.app).put(`/v1/apps/${tenant.app_id}/models/${haiku?.id}`).set(tenant.auth).send({ active: true }).expect(200);
    expect(switched.body).toMatchObject({ active: true, available: false, unavailable_reason: { code: 'provider_key_missing' } });
  });
});
