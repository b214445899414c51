import request from 'supertest';
import type { Prisma } from '../../src/generated/prisma/client';
import type { CandidateView as Candidate } from '../../src/pipeline/model-plan';
import type { Tenant } from '../helpers/test-context';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { uniqueSuffix } from '../helpers/test-database';
import { startSimulator, type Simulator } from '../simulator/server';
import { shippedRouter } from '../helpers/shipped-router';

/**
 * Which model answers: explicit names, availability, automatic selection under the hard limits and the
 * Space's weights, the scores the response reports, and what happens to deprecated models and to
 * parameters a model does not support. Every provider points at the simulator, except xAI, which has
 * no API key here so that its models are unavailable.
 */

let sim: Simulator;
let h: CompletionsHarness;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({
    providers: { ...simulatedProviders(sim), xai: { baseUrl: sim.baseUrls.openai } },
  });
});
afterAll(async () => {
  await h.close();
  await sim.close();
});
beforeEach(() => sim.reset());

/** A prompt no category signal matches, so each candidate's quality is its catalog overall figure. */
const HELLO = [{ role: 'user', content: 'Hello there' }];

interface SpaceSetup {
  /** Catalog models active in the Space; every other catalog model is switched off. */
  models: string[];
  weights?: { cost: number; latency: number; quality: number };
  policies?: Record<string, unknown>;
}

/** A new tenant whose Space has exactly these catalog models active and this configuration. */
async function spaceWith(setup: SpaceSetup): Promise<Tenant> {
  const tenant = await h.tenant();
  const listing = await request(h.app).get(`/v1/apps/${tenant.app_id}/models`).set(tenant.auth).expect(200);
  for (const model of listing.body.base_model_settings as { id: string; model: string; active: boolean }[]) {
    const wanted = setup.models.includes(model.model);
    if (model.active !== wanted) {
      await request(h.app).put(`/v1/apps/${tenant.app_id}/models/${model.id}`).set(tenant.auth).send({ active: wanted }).expect(200);
    }
  }
  const known = new Set((listing.body.base_model_settings as { model: string }[]).map((m) => m.model));
  const missing = setup.models.filter((name) => !known.has(name));
  if (missing.length > 0) throw new Error(`not in the catalog: ${missing.join(', ')}`);
  if (setup.weights || setup.policies) {
    await request(h.app)
      .put('/v1/apps/update')
      .set(tenant.auth)
      .send({ id: tenant.app_id, ...(setup.weights ? { weights: setup.weights } : {}), ...(setup.policies ? { policies: setup.policies } : {}) })
      .expect(200);
  }
  return tenant;
}

/** A custom model of the tenant's organization, served by the simulator's OpenAI dialect, active in its Space. */
async function customModel(tenant: Tenant, name: string, data: Partial<Prisma.ModelUncheckedCreateInput> = {}): Promise<void> {
  const row = await h.services.db.model.create({
    data: {
      model: name,
      provider: 'openai',
      namespace: name,
      org_id: tenant.org_id,
      is_public: false,
      context_window: 128_000,
      prompt_token_cost: 1e-6,
      completion_token_cost: 2e-6,
      supports_functions: true,
      supports_json: true,
      quality_profile: { overall: 0.5, categories: {} },
      ...data,
    },
  });
  await h.services.db.appModel.create({ data: { app_id: tenant.app_id, model_id: row.id, active: true } });
}

const complete = (tenant: Tenant, body: object) =>
  request(h.app)
    .post('/v1/chat/completions')
    .set(tenant.auth)
    .send({ messages: HELLO, ...body });

const candidatesOf = (body: { metadata: { scores: { candidates: Candidate[] } } }) => body.metadata.scores.candidates;
const namesOf = (body: { metadata: { scores: { candidates: Candidate[] } } }) =>
  candidatesOf(body)
    .map((c) => c.model)
    .sort();
/** Models the simulator was asked for, in order. */
const upstreamModels = () => sim.requests.map((r) => (r.body as { model: string }).model);

describe('a named model', () => {
  it('answers when it is active in the Space, and the response names it', async () => {
    const tenant = await spaceWith({ models: ['gpt-4.1-mini', 'claude-sonnet-4-5'] });
    const res = await complete(tenant, { model: 'gpt-4.1-mini' });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('gpt-4.1-mini');
    expect(res.body.metadata.model).toEqual({ model: 'gpt-4.1-mini', namespace: 'gpt-4.1-mini', provider: 'openai', owner: 'openai', at: '' });
    expect(res.body.choices[0].message.content).toBe('Echo: Hello there');
    expect(upstreamModels()).toEqual(['gpt-4.1-mini']);
  });

  it("is sent upstream under the provider's own name", async () => {
    const tenant = await spaceWith({ models: ['gpt-4.1-mini', 'claude-sonnet-4-5'] });
    const res = await complete(tenant, { model: 'claude-sonnet-4-5' });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('claude-sonnet-4-5');
    expect(res.body.metadata.model).toMatchObject({ model: 'claude-sonnet-4-5', namespace: 'claude-sonnet-4-5-20250929', provider: 'anthropic' });
    expect(sim.requests.map((r) => [r.dialect, (r.body as { model: string }).model])).toEqual([['/anthropic', 'claude-sonnet-4-5-20250929']]);
  });

  it('is refused with model_not_available when it is in the catalog but not active in the Space', async () => {
    const tenant = await spaceWith({ models: ['gpt-4.1-mini'] });
    const res = await complete(tenant, { model: 'gpt-4o' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { message: "Model 'gpt-4o' is not active in this Space.", type: 'invalid_request_error', code: 'model_not_available', param: 'model' },
    });
    expect(sim.requests).toHaveLength(0);
  });

  it('is a 404 when no model has that name', async () => {
    const tenant = await spaceWith({ models: ['gpt-4.1-mini'] });
    const res = await complete(tenant, { model: 'no-such-model-anywhere' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: { message: "Model 'no-such-model-anywhere' does not exist.", type: 'not_found_error', code: 'not_found', param: 'model' },
    });
  });

  it.each(['auto', 'default', 'Switchyard'])('is a 404 naming the automatic name for %j, which meant the router', async (model) => {
    const tenant = await spaceWith({ models: ['gpt-4.1-mini'] });
    const res = await complete(tenant, { model });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { code: 'not_found', param: 'model' } });
    expect((res.body as { error: { message: string } }).error.message).toBe(
      `Model '${model}' does not exist. To let the router choose, leave 'model' out or send 'switchyard'.`,
    );
  });

  it('suggests the automatic name for a close misspelling of it', async () => {
    const tenant = await spaceWith({ models: ['gpt-4.1-mini'] });
    const res = await complete(tenant, { model: 'switchyrd' });
    expect((res.body as { error: { message: string } }).error.message).toBe("Model 'switchyrd' does not exist. Did you mean 'switchyard'?");
  });

  it("is a 404 when it is another organization's custom model", async () => {
    const other = await spaceWith({ models: ['gpt-4.1-mini'] });
    const name = `private-${uniqueSuffix()}`;
    await customModel(other, name);
    const tenant = await spaceWith({ models: ['gpt-4.1-mini'] });
    expect((await complete(tenant, { model: name })).status).toBe(404);
    expect((await complete(other, { model: name })).status).toBe(200);
  });
});

describe('a model whose provider has no API key', () => {
  it('is unavailable when named, and the error says why', async () => {
    const tenant = await spaceWith({ models: ['grok-3-mini', 'gpt-4.1-mini'] });
    const res = await complete(tenant, { model: 'grok-3-mini' });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      message: "Model 'grok-3-mini' is unavailable: XAI_API_KEY is not set (provider_key_missing).",
      type: 'invalid_request_error',
      code: 'model_not_available',
      param: 'model',
    });
    expect(sim.requests).toHaveLength(0);
  });

  it('is never chosen automatically, even when it would score best', async () => {
    // grok-4's quality (0.88) beats gpt-4.1-mini's (0.77), and quality is all that counts here.
    const tenant = await spaceWith({ models: ['grok-4', 'gpt-4.1-mini'], weights: { cost: 0, latency: 0, quality: 1 } });
    const res = await complete(tenant, {});
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('gpt-4.1-mini');
    expect(namesOf(res.body)).toEqual(['gpt-4.1-mini']);
    expect(upstreamModels()).toEqual(['gpt-4.1-mini']);
  });

  it('leaves nothing to choose when it is the only model, and the error says why', async () => {
    const tenant = await spaceWith({ models: ['grok-4'] });
    const res = await complete(tenant, {});
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'model_not_available',
      message:
        'No model of this Space can take this request: 1 is on but cannot be called here (provider not configured: xai). ' +
        "To make it work: set the key of a provider of the Space's models (GET /v1/models?all=true says which).",
    });
  });

  it('leads with the reason of the model that could answer, before those of unconfigured providers, and says what would help', async () => {
    const tenant = await spaceWith({ models: ['grok-4', 'deepseek-reasoner'] });
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
    const res = await complete(tenant, { tools });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'model_not_available',
      message:
        'No model of this Space can take this request: deepseek-reasoner: does not support tools; 1 more is on but cannot be called here ' +
        '(provider not configured: xai). To make it work: switch on a model that supports tools, or send none.',
    });
  });
});

describe('automatic selection', () => {
  it('happens without a model and with the service name, among active, available, non-deprecated models only', async () => {
    // No latency weight: the worker's latency measurements (shared by every test here) must not tip the choice.
    const tenant = await spaceWith({
      models: ['gpt-4.1-mini', 'claude-haiku-4-5', 'mistral-small-2506', 'grok-4'],
      weights: { cost: 0.5, latency: 0, quality: 0.5 },
    });
    await customModel(tenant, `old-${uniqueSuffix()}`, { deprecated_on: new Date('2025-01-01T00:00:00Z'), quality_profile: { overall: 0.99, categories: {} } });
    const auto = await complete(tenant, {});
    const named = await complete(tenant, { model: h.services.config.autoModelName });
    expect(h.services.config.autoModelName).toBe('switchyard');
    for (const res of [auto, named]) {
      expect(res.status).toBe(200);
      expect(namesOf(res.body)).toEqual(['claude-haiku-4-5', 'gpt-4.1-mini', 'mistral-small-2506']);
      expect(res.body.model).toBe(candidatesOf(res.body)[0].model);
    }
    expect(named.body.model).toBe(auto.body.model);
  });

  it('reports every candidate with its quality, cost, latency and score, best first, and the chosen one in metadata.score', async () => {
    const models = ['gpt-5', 'gpt-4.1-mini', 'claude-haiku-4-5', 'mistral-small-2506'];
    const tenant = await spaceWith({ models, weights: { cost: 0.5, latency: 0, quality: 0.5 } });
    const res = await complete(tenant, {});
    expect(res.status).toBe(200);
    const candidates = candidatesOf(res.body);
    expect(candidates.map((c) => c.model).sort()).toEqual([...models].sort());
    for (const c of candidates) {
      expect(c).toEqual({
        model: expect.any(String),
        provider: expect.any(String),
        score: expect.any(Number),
        quality: expect.any(Number),
        offline_quality: c.quality,
        cost: expect.any(Number),
        latency: expect.any(Number),
      });
      expect(c.quality).toBeGreaterThan(0);
      expect(c.quality).toBeLessThan(1);
      expect(c.cost).toBeGreaterThan(0);
      expect(c.latency).toBeGreaterThanOrEqual(0);
      expect(c.score).toBeGreaterThanOrEqual(0);
      expect(c.score).toBeLessThanOrEqual(1);
    }
    const scores = candidates.map((c) => c.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(res.body.metadata.scores.best_models).toEqual(candidates.slice(0, 3).map((c) => c.model));
    expect(res.body.model).toBe(candidates[0].model);
    expect(res.body.metadata.score).toBe(candidates[0].score);
    expect(res.body.metadata.scores.router).toEqual({ version: shippedRouter().version, kind: 'chat', smart_learn: false, explored: false });
    // Cost is the request's estimate: gpt-5 is priced 12.5 times gpt-4.1-mini's prompt rate and 6.25 times its completion rate.
    const cost = Object.fromEntries(candidates.map((c) => [c.model, c.cost]));
    expect(cost['gpt-5']).toBeGreaterThan(cost['gpt-4.1-mini']);
    expect(cost['mistral-small-2506']).toBe(Math.min(...Object.values(cost)));
  });

  it('is deterministic: the same request twice gets the same model and the same scores', async () => {
    // Latency weighs nothing here: the worker learns each model's latency from its answers, so with a
    // latency weight the second request would rightly see the first one's measurement.
    const tenant = await spaceWith({
      models: ['gpt-5', 'gpt-4.1-mini', 'claude-haiku-4-5', 'gemini-2.5-flash', 'deepseek-chat'],
      weights: { cost: 0.4, latency: 0, quality: 0.6 },
    });
    const first = await complete(tenant, {});
    const second = await complete(tenant, {});
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    const comparable = (body: { model: string; metadata: { score: number; scores: { best_models: string[]; candidates: Candidate[] } } }) => ({
      model: body.model,
      score: body.metadata.score,
      best: body.metadata.scores.best_models,
      candidates: body.metadata.scores.candidates.map(({ model, quality, cost, score }) => ({ model, quality, cost, score })),
    });
    expect(comparable(second.body)).toEqual(comparable(first.body));
  });
});

describe('hard limits', () => {
  const TOOLS = [
    {
      type: 'function',
      function: { name: 'lookup', description: 'Looks something up', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
    },
  ];

  it('never sends a request with tools to a model without function support', async () => {
    // deepseek-reasoner (quality 0.86, no functions) beats gpt-4.1-nano (0.65) on quality alone.
    const tenant = await spaceWith({ models: ['deepseek-reasoner', 'gpt-4.1-nano'], weights: { cost: 0, latency: 0, quality: 1 } });
    const plain = await complete(tenant, {});
    expect(plain.body.model).toBe('deepseek-reasoner');
    const withTools = await complete(tenant, { tools: TOOLS });
    expect(withTools.status).toBe(200);
    expect(withTools.body.model).toBe('gpt-4.1-nano');
    expect(namesOf(withTools.body)).toEqual(['gpt-4.1-nano']);
    expect(withTools.body.choices[0].message.tool_calls[0].function.name).toBe('lookup');
    const named = await complete(tenant, { model: 'deepseek-reasoner', tools: TOOLS });
    expect(named.status).toBe(400);
    expect(named.body.error).toMatchObject({
      code: 'model_not_available',
      message: "Model 'deepseek-reasoner' cannot take this request: does not support tools.",
    });
    expect(upstreamModels()).toEqual(['deepseek-reasoner', 'gpt-4.1-nano']);
  });

  it('answers 400 when no active model supports tools', async () => {
    const tenant = await spaceWith({ models: ['deepseek-reasoner'] });
    const res = await complete(tenant, { tools: TOOLS });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'model_not_available',
      message:
        'No model of this Space can take this request: deepseek-reasoner: does not support tools. To make it work: switch on a model that supports tools, or send none.',
    });
    expect(sim.requests).toHaveLength(0);
  });

  it('sends images only to vision models', async () => {
    // deepseek-chat (no vision) has the better profile than gpt-4.1-nano (vision): it wins on quality alone.
    const tenant = await spaceWith({ models: ['deepseek-chat', 'gpt-4.1-nano'], weights: { cost: 0, latency: 0, quality: 1 } });
    expect((await complete(tenant, {})).body.model).toBe('deepseek-chat');
    const image = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hello there' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
    ];
    const res = await complete(tenant, { messages: image });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('gpt-4.1-nano');
    expect(namesOf(res.body)).toEqual(['gpt-4.1-nano']);
    const named = await complete(tenant, { model: 'deepseek-chat', messages: image });
    expect(named.status).toBe(400);
    expect(named.body.error.message).toBe("Model 'deepseek-chat' cannot take this request: does not accept images.");
  });

  it('sends JSON mode only to models that support it', async () => {
    // claude-opus-4-5 (0.90) has no JSON mode in the catalog; gpt-4.1-nano (0.65) has.
    const tenant = await spaceWith({ models: ['claude-opus-4-5', 'gpt-4.1-nano'], weights: { cost: 0, latency: 0, quality: 1 } });
    expect((await complete(tenant, {})).body.model).toBe('claude-opus-4-5');
    const res = await complete(tenant, { response_format: { type: 'json_object' } });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('gpt-4.1-nano');
    expect(namesOf(res.body)).toEqual(['gpt-4.1-nano']);
    expect(JSON.parse(res.body.choices[0].message.content)).toEqual({ answer: 'Echo: Hello there' });
  });

  it('skips a model whose context window the prompt does not fit', async () => {
    const tenant = await spaceWith({ models: ['gpt-4.1-nano'], weights: { cost: 0, latency: 0, quality: 1 } });
    const small = `small-${uniqueSuffix()}`;
    await customModel(tenant, small, { context_window: 100, quality_profile: { overall: 0.99, categories: {} } });
    expect((await complete(tenant, {})).body.model).toBe(small);
    const long = [{ role: 'user', content: 'Hello there. '.repeat(100) }];
    const res = await complete(tenant, { messages: long });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('gpt-4.1-nano');
    expect(namesOf(res.body)).toEqual(['gpt-4.1-nano']);
    const named = await complete(tenant, { model: small, messages: long });
    expect(named.status).toBe(400);
    expect(named.body.error.message).toMatch(
      new RegExp(`^Model '${small}' cannot take this request: prompt of \\d+ tokens exceeds the context window of 100\\.$`),
    );
  });

  it('excludes models whose estimated cost exceeds policies.max_cost', async () => {
    const tenant = await spaceWith({ models: ['gpt-5', 'gpt-4.1-nano', 'mistral-small-2506'], weights: { cost: 0, latency: 0, quality: 1 } });
    const free = await complete(tenant, {});
    expect(free.body.model).toBe('gpt-5');
    const costOf = Object.fromEntries(candidatesOf(free.body).map((c) => [c.model, c.cost]));
    // A ceiling between gpt-4.1-nano's estimate and gpt-5's.
    const maxCost = Number(((costOf['gpt-4.1-nano'] + costOf['gpt-5']) / 2).toPrecision(3));
    expect(costOf['gpt-5']).toBeGreaterThan(maxCost);
    const capped = await complete(tenant, { custom_headers: { policies: { max_cost: maxCost } } });
    expect(capped.status).toBe(200);
    // mistral-small-2506 (0.66) is the best of what is left, ahead of gpt-4.1-nano (0.65).
    expect(capped.body.model).toBe('mistral-small-2506');
    expect(namesOf(capped.body)).toEqual(['gpt-4.1-nano', 'mistral-small-2506']);
    for (const c of candidatesOf(capped.body)) expect(c.cost).toBeLessThanOrEqual(maxCost);
  });

  it('applies the Space max_cost too', async () => {
    const tenant = await spaceWith({ models: ['gpt-5', 'gpt-4.1-nano'], weights: { cost: 0, latency: 0, quality: 1 }, policies: { max_cost: 0.0001 } });
    const res = await complete(tenant, {});
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('gpt-4.1-nano');
    expect(namesOf(res.body)).toEqual(['gpt-4.1-nano']);
  });

  it('routes privacy level 3 only to GDPR models', async () => {
    const tenant = await spaceWith({ models: ['gpt-5', 'mistral-small-2506', 'mistral-medium-2505'], weights: { cost: 0, latency: 0, quality: 1 } });
    expect((await complete(tenant, {})).body.model).toBe('gpt-5');
    const res = await complete(tenant, { custom_headers: { policies: { privacy_level: 3 } } });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('mistral-medium-2505');
    expect(namesOf(res.body)).toEqual(['mistral-medium-2505', 'mistral-small-2506']);
    const named = await complete(tenant, { model: 'gpt-5', custom_headers: { policies: { privacy_level: 3 } } });
    expect(named.status).toBe(400);
    expect(named.body.error.message).toBe("Model 'gpt-5' cannot take this request: privacy level 3 needs a model processed under GDPR terms.");
  });
});

describe('weights', () => {
  const models = ['gpt-5', 'gpt-4.1-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'mistral-small-2506', 'deepseek-chat'];

  it('cost weight 1 picks the cheapest eligible model', async () => {
    const tenant = await spaceWith({ models, weights: { cost: 1, latency: 0, quality: 0 } });
    const res = await complete(tenant, {});
    expect(res.status).toBe(200);
    const candidates = candidatesOf(res.body);
    expect(res.body.model).toBe('mistral-small-2506');
    expect(candidates.find((c) => c.model === res.body.model)?.cost).toBe(Math.min(...candidates.map((c) => c.cost)));
    expect(res.body.metadata.score).toBe(1);
  });

  it('quality weight 1 picks the highest quality profile', async () => {
    const tenant = await spaceWith({ models, weights: { cost: 0, latency: 0, quality: 1 } });
    const res = await complete(tenant, {});
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('gpt-5');
    // Quality alone: the score is the quality, and gpt-5's profile is the best of these.
    expect(res.body.metadata.score).toBeCloseTo(Math.max(...candidatesOf(res.body).map((c) => c.quality)), 4);
  });

  it('custom_headers.weights override the Space weights for one request', async () => {
    const tenant = await spaceWith({ models, weights: { cost: 1, latency: 0, quality: 0 } });
    const overridden = await complete(tenant, { custom_headers: { weights: { cost: 0, latency: 0, quality: 1 } } });
    expect(overridden.status).toBe(200);
    expect(overridden.body.model).toBe('gpt-5');
    const next = await complete(tenant, {});
    expect(next.body.model).toBe('mistral-small-2506');
  });

  it('a partial custom_headers.weights merges with the Space weights', async () => {
    // Space: cost 1; the request adds quality 1 and keeps cost 1, so neither extreme wins outright.
    const tenant = await spaceWith({ models: ['gpt-5', 'mistral-small-2506', 'deepseek-chat'], weights: { cost: 1, latency: 0, quality: 0 } });
    const res = await complete(tenant, { custom_headers: { weights: { quality: 1 } } });
    expect(res.status).toBe(200);
    const candidates = candidatesOf(res.body);
    const costs = candidates.map((c) => c.cost);
    const [cheapest, dearest] = [Math.min(...costs), Math.max(...costs)];
    for (const c of candidates) {
      const expected = (c.quality + (dearest - c.cost) / (dearest - cheapest)) / 2;
      expect(c.score).toBeCloseTo(expected, 4);
    }
  });
});

describe('deprecated models', () => {
  it('still answer when named, with a warning', async () => {
    const tenant = await spaceWith({ models: ['gpt-4.1-mini'] });
    const name = `legacy-${uniqueSuffix()}`;
    const until = new Date(Date.now() + 90 * 24 * 3600 * 1000);
    await customModel(tenant, name, { deprecated_on: new Date(Date.now() - 24 * 3600 * 1000), until });
    const res = await complete(tenant, { model: name });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe(name);
    expect(res.body.metadata.warning).toBe(`Model '${name}' is deprecated and will be retired on ${until.toISOString().slice(0, 10)}.`);
    expect(upstreamModels()).toEqual([name]);
  });

  it('are refused once retired', async () => {
    // gpt-4.5-preview was deprecated on 2025-04-14 and retired on 2025-07-14.
    const tenant = await spaceWith({ models: ['gpt-4.1-mini', 'gpt-4.5-preview'] });
    const res = await complete(tenant, { model: 'gpt-4.5-preview' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe("Model 'gpt-4.5-preview' cannot take this request: retired.");
  });
});

describe('parameters a model does not support', () => {
  it('are dropped with a warning', async () => {
    const tenant = await spaceWith({ models: ['gpt-5', 'gpt-4.1-mini'] });
    const res = await complete(tenant, { model: 'gpt-5', n: 2, presence_penalty: 0.5, frequency_penalty: 0.25 });
    expect(res.status).toBe(200);
    expect(res.body.metadata.warning).toBe('Not supported by gpt-5 and left out: n, presence_penalty, frequency_penalty.');
    const sent = sim.requests[0].body as Record<string, unknown>;
    expect(sent).not.toHaveProperty('n');
    expect(sent).not.toHaveProperty('presence_penalty');
    expect(sent).not.toHaveProperty('frequency_penalty');
  });

  it('are passed on to a model that supports them, without a warning', async () => {
    const tenant = await spaceWith({ models: ['gpt-5', 'gpt-4.1-mini'] });
    const res = await complete(tenant, { model: 'gpt-4.1-mini', n: 2, presence_penalty: 0.5 });
    expect(res.status).toBe(200);
    expect(res.body.metadata.warning).toBe('');
    expect(sim.requests[0].body).toMatchObject({ model: 'gpt-4.1-mini', n: 2, presence_penalty: 0.5 });
  });
});
