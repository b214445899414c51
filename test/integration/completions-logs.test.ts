import request from 'supertest';
import type { Log, Model } from '../../src/generated/prisma/client';
import { createOrgKey } from '../../src/services/tenancy/key-admin';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { complete, completeStream, eventually, isolatedSpace, logsOf, nth, onlyLogOf, script, sseEvents, userMessage } from '../helpers/completion-fixtures';
import type { Tenant } from '../helpers/test-context';
import { startSimulator, type Simulator } from '../simulator/server';

let sim: Simulator;
let h: CompletionsHarness;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim) });
});
afterAll(async () => {
  await h.close();
  await sim.close();
});

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** USD at the model row's per-token catalog prices (and its per-request base cost in the total). */
function priced(model: Model, usage: Usage) {
  const prompt = usage.prompt_tokens * model.prompt_token_cost;
  const completion = usage.completion_tokens * model.completion_token_cost;
  return { prompt, completion, total: prompt + completion + model.base_cost };
}

function expectCosts(log: Log, model: Model, usage: Usage): void {
  const costs = priced(model, usage);
  expect(log.prompt_tokens_cost).toBeCloseTo(costs.prompt, 12);
  expect(log.completion_tokens_cost).toBeCloseTo(costs.completion, 12);
  expect(log.total_tokens_cost).toBeCloseTo(costs.total, 12);
}

/** The answering model is cheap; the benchmark (never chosen: lower quality) is dear, so savings are positive. */
const pricedSpace = () =>
  isolatedSpace(h, {
    models: [
      { name: 'answering', quality: 0.9, promptCost: 3e-6, completionCost: 1.5e-5 },
      { name: 'benchmark', quality: 0.1, promptCost: 1e-5, completionCost: 3e-5 },
    ],
    benchmark: 'benchmark',
  });

const getLog = (tenant: Tenant, id: string) => request(h.app).get(`/v1/logs/${id}`).set(tenant.auth);

describe('the log of an answered request', () => {
  it('fills every field, with costs from catalog prices and savings against the benchmark', async () => {
    const { tenant, models } = await pricedSpace();
    const answering = models.answering;
    script(sim, answering, [
      { kind: 'status', status: 503 },
      { kind: 'ok', delayMs: 30 },
    ]);
    const body = {
      model: 'answering',
      messages: [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: 'What is the capital of Norway?' },
      ],
      temperature: 0.3,
      stream: false,
      custom_headers: { labels: { team: 'search', ticket: 42, urgent: true } },
    };
    const before = Date.now();
    const res = await complete(h, tenant, body);
    const after = Date.now();
    expect(res.status).toBe(200);
    const usage = res.body.usage as Usage;
    expect(usage.total_tokens).toBeGreaterThan(0);

    const { parent, children } = await logsOf(h, res.body.id);
    expect(parent).toMatchObject({
      id: res.body.id,
      parent_id: null,
      org_id: tenant.org_id,
      app_id: tenant.app_id,
      model_id: answering.id,
      namespace: answering.namespace,
      payload: body,
      response: res.body,
      prompt: 'What is the capital of Norway?',
      response_text: res.body.choices[0].message.content,
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.total_tokens,
      costs_incurred: true,
      privacy_level: 1,
      request_type: 'chat_completions',
      status_code: 200,
      is_test: false,
      labels: { team: 'search', ticket: 42, urgent: true },
    });
    expect(parent.response_text).not.toBe('');
    expect(Number(parent.timestamp)).toBeGreaterThanOrEqual(before);
    expect(Number(parent.timestamp)).toBeLessThanOrEqual(after);
    expect(parent.latency).toBeGreaterThanOrEqual(30);
    expectCosts(parent, answering, usage);
    const benchmark = priced(models.benchmark, usage);
    const actual = priced(answering, usage);
    expect(parent.prompt_tokens_cost_savings).toBeCloseTo(benchmark.prompt - actual.prompt, 12);
    expect(parent.completion_tokens_cost_savings).toBeCloseTo(benchmark.completion - actual.completion, 12);
    expect(parent.total_tokens_cost_savings).toBeCloseTo(benchmark.total - actual.total, 12);
    expect(parent.total_tokens_cost_savings).toBeGreaterThan(0);
    expect(res.body.metadata.costs.total_tokens).toBeCloseTo(actual.total, 12);
    expect(res.body.metadata.cost_savings.total_tokens).toBeCloseTo(benchmark.total - actual.total, 12);

    // One child per upstream call: the refused one costs nothing, the answering one what the request cost.
    expect(children).toHaveLength(2);
    for (const child of children) expect(child).toMatchObject({ parent_id: parent.id, app_id: tenant.app_id, model_id: answering.id });
    expect(children.map((c) => c.status_code)).toEqual([503, 200]);
    // A step's `costs_incurred` says whether it cost anything; the parent carries the request's total.
    expect(children.map((c) => c.costs_incurred)).toEqual([false, true]);
    expect(children[0]).toMatchObject({ total_tokens: 0, total_tokens_cost: 0 });
    expect(children[1]).toMatchObject({ prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens });
    expectCosts(nth(children, 1), answering, usage);
    expect(nth(children, 1).latency).toBeGreaterThanOrEqual(30);
    expect(nth(children, 1).timestamp).toBeGreaterThan(nth(children, 0).timestamp);

    const read = await getLog(tenant, res.body.id);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: res.body.id,
      parent_id: null,
      payload: body,
      response: res.body,
      timestamp: Number(parent.timestamp),
      status_code: 200,
      total_tokens_cost: parent.total_tokens_cost,
      total_tokens_cost_savings: parent.total_tokens_cost_savings,
      labels: body.custom_headers.labels,
    });
  });

  it('logs a stream with its assembled answer, usage and costs', async () => {
    const { tenant, models } = await pricedSpace();
    const res = await completeStream(h, tenant, { messages: userMessage('Tell me about fjords.'), custom_headers: { labels: { kind: 'stream' } } });
    expect(res.status).toBe(200);
    const events = sseEvents(res.text);
    const final = events.at(-1) as { id: string; usage: Usage };
    const text = events.map((e) => (e.choices as { delta?: { content?: string } }[])[0]?.delta?.content ?? '').join('');
    const { parent, children } = await logsOf(h, final.id);
    expect(parent).toMatchObject({
      status_code: 200,
      prompt: 'Tell me about fjords.',
      response_text: text,
      total_tokens: final.usage.total_tokens,
      namespace: models.answering.namespace,
      labels: { kind: 'stream' },
      request_type: 'chat_completions',
    });
    expect(text).not.toBe('');
    expect(parent.response).toMatchObject({ id: final.id, object: 'chat.completion', choices: [{ message: { role: 'assistant', content: text } }] });
    expect(parent.latency).toBeGreaterThan(0);
    expectCosts(parent, models.answering, final.usage);
    expect(children).toHaveLength(1);
    expect(children[0]).toMatchObject({ parent_id: final.id, status_code: 200, costs_incurred: true, total_tokens: final.usage.total_tokens });
  });

  it('writes exactly one parent log per request', async () => {
    const { tenant } = await pricedSpace();
    const ids: string[] = [];
    for (const stream of [false, true, false]) {
      if (stream) ids.push((sseEvents((await completeStream(h, tenant, { messages: userMessage('hi') })).text).at(-1) as { id: string }).id);
      else ids.push((await complete(h, tenant, { messages: userMessage('hi') })).body.id as string);
    }
    await Promise.all(ids.map((id) => logsOf(h, id)));
    const parents = await h.services.db.log.findMany({ where: { app_id: tenant.app_id, parent_id: null } });
    expect(parents.map((p) => p.id).sort()).toEqual([...ids].sort());
  });
});

describe('the log of a failed request', () => {
  it('keeps the error, our status and each failed call', async () => {
    const { tenant, models } = await isolatedSpace(h, {
      models: [{ name: 'down', namespace: 'sim-503' }],
      update: { policies: { max_same_model_retries: 1 } },
    });
    const res = await complete(h, tenant, { messages: userMessage('Anyone there?'), custom_headers: { labels: { run: 'failing' } } });
    expect(res.status).toBe(502);
    const { parent, children } = await onlyLogOf(h, tenant);
    expect(parent).toMatchObject({
      status_code: 502,
      response: res.body,
      prompt: 'Anyone there?',
      response_text: '',
      total_tokens: 0,
      total_tokens_cost: 0,
      model_id: models.down.id,
      namespace: 'sim-503',
      labels: { run: 'failing' },
    });
    expect(children.map((c) => [c.status_code, c.costs_incurred, c.total_tokens_cost])).toEqual([
      [503, false, 0],
      [503, false, 0],
    ]);
    expect((await getLog(tenant, parent.id)).status).toBe(200);
  });

  it('logs a stream cut after its first chunk with the part that was sent', async () => {
    const { tenant } = await isolatedSpace(h, { models: [{ name: 'cut', namespace: 'sim-cut-2' }] });
    const res = await completeStream(h, tenant, { messages: userMessage('Count to ten, slowly please.') });
    expect(res.status).toBe(200);
    const events = sseEvents(res.text);
    const id = nth(events, 0).id as string;
    const sent = events.map((e) => (e.choices as { delta?: { content?: string } }[] | undefined)?.[0]?.delta?.content ?? '').join('');
    const { parent, children } = await logsOf(h, id);
    expect(parent.status_code).toBe(502);
    expect(parent.response_text).toBe(sent);
    expect(parent.response).toMatchObject({ error: { code: 'upstream_error' } });
    expect(children).toHaveLength(1);
    expect(nth(children, 0).status_code).toBe(502);
  });
});

describe('a sandbox Space', () => {
  it('logs its requests with is_test', async () => {
    const { tenant, models } = await isolatedSpace(h, { models: [{ name: 'answering' }] });
    await request(h.app).post(`/v1/apps/${tenant.app_id}/sandbox`).set(tenant.auth).expect(202);
    // The harness runs the sandbox-sync worker, which copies the Space and its model states.
    const sandbox = await eventually(() => h.services.db.app.findFirst({ where: { sandbox_of: tenant.app_id } }));
    const key = await createOrgKey(h.services.db, { orgId: tenant.org_id, appId: sandbox.id, role: 'member' });
    const sandboxTenant: Tenant = { ...tenant, app_id: sandbox.id, api_key: key.api_key, auth: { Authorization: `Bearer ${key.api_key}` } };

    const res = await complete(h, sandboxTenant, { messages: userMessage('Testing the sandbox.') });
    expect(res.status).toBe(200);
    expect(res.body.metadata.app_id).toBe(sandbox.id);
    const { parent, children } = await logsOf(h, res.body.id);
    expect(parent).toMatchObject({ app_id: sandbox.id, is_test: true, model_id: models.answering.id });
    expect(children.every((c) => c.is_test)).toBe(true);

    const main = await complete(h, tenant, { messages: userMessage('And the main Space.') });
    expect((await logsOf(h, main.body.id)).parent).toMatchObject({ app_id: tenant.app_id, is_test: false });
  });
});
