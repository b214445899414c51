import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import request from 'supertest';
import { buildApp } from '../../src/app/app';
import { processMetricsSource } from '../../src/observability/metrics-source';
import { startMetricsServer } from '../../src/observability/metrics-server';
import { openBreakersKey } from '../../src/resilience/circuit-breakers';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { eventually, isolatedSpace, script, times } from '../helpers/completion-fixtures';
import { parsePrometheusText, type Scrape } from '../helpers/prometheus-text';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * GET /metrics after real completions (the official OpenAI SDK against Switchyard on a real port, the
 * provider simulator upstream), read as a Prometheus scraper reads it.
 */

const TOKEN = 'metrics-token-for-the-test-0123';
let sim: Simulator;
let h: CompletionsHarness;
let server: ListeningApp;
let baseURL: string;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({
    providers: simulatedProviders(sim),
    observability: {
      metricsToken: TOKEN,
      metricsPort: null,
      metricsHost: '127.0.0.1',
      tracesUrl: null,
      otlpHeaders: {},
      serviceName: 'switchyard',
      exportDelayMs: 5000,
    },
  });
  server = await listenOnLoopback(h.app);
  baseURL = `${server.origin}`;
});
afterAll(async () => {
  await server.close();
  await h.close();
  await sim.close();
});
beforeEach(() => sim.reset());

async function scrape(): Promise<Scrape> {
  const res = await fetch(`${baseURL}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(await res.text());
}

/** A Space whose best model is `first`, then `runner-up`; `benchmark` (never chosen) is dear, so savings are positive. */
async function space(policies: object = {}) {
  return isolatedSpace(h, {
    models: [
      { name: 'first', quality: 0.9 },
      { name: 'runner-up', quality: 0.8 },
      { name: 'benchmark', quality: 0.1, promptCost: 1e-5, completionCost: 3e-5 },
    ],
    benchmark: 'benchmark',
    update: { has_failover_chain: false, policies },
  });
}

function clientOf(apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${baseURL}/v1`, maxRetries: 0 });
}

describe('access to /metrics', () => {
  it('asks for METRICS_TOKEN as a bearer token', async () => {
    const missing = await request(server.server).get('/metrics');
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ code: 'missing_api_key', param: 'Authorization' });
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    const wrong = await request(server.server).get('/metrics').set('Authorization', 'Bearer not-the-metrics-token-at-all');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_api_key');
    expect(JSON.stringify(wrong.body)).not.toContain(TOKEN);
    // An API key, even a valid one, is not the metrics token.
    const tenant = await h.tenant();
    expect((await request(server.server).get('/metrics').set(tenant.auth)).status).toBe(401);
    expect((await request(server.server).get('/metrics').set('Authorization', `Bearer ${TOKEN}`)).status).toBe(200);
  });

  it('is not served on the API port without METRICS_TOKEN', async () => {
    const config = { ...h.services.config, observability: { ...h.services.config.observability, metricsToken: null } };
    const app = buildApp({ config, logger: h.services.logger, services: h.services });
    const res = await request(app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain('METRICS_TOKEN');
  });

  it('is served on a METRICS_PORT listener (a workers-only process), with the token when one is set', async () => {
    const metricsServer = await startMetricsServer({ port: 0, host: '127.0.0.1', token: TOKEN, source: processMetricsSource(), logger: h.services.logger });
    try {
      const url = `http://127.0.0.1:${metricsServer.port}`;
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      expect((await fetch(`${url}/other`)).status).toBe(404);
      const res = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      const scraped = parsePrometheusText(await res.text());
      expect(scraped.families.get('switchyard_job_duration_seconds')?.type).toBe('histogram');
    } finally {
      await metricsServer.close();
    }
  });
});

describe('scrape-time gauges', () => {
  it('reads queue depth per queue and state, and the open breakers, from Redis', async () => {
    const { redis, config, queues } = h.services;
    const job = await queues.sandboxSync.add('sync', { mainAppId: randomUUID(), requestedBy: 'metrics-test' }, { delay: 60_000 });
    const cooling = randomUUID();
    const probing = randomUUID();
    await redis.hset(openBreakersKey(config.redisPrefix), cooling, String(Date.now() + 60_000), probing, String(Date.now() - 1000));
    try {
      const scraped = await scrape();
      expect(scraped.value('switchyard_queue_jobs', { queue: 'sandbox-sync', state: 'delayed' })).toBe(1);
      expect(scraped.value('switchyard_queue_jobs', { queue: 'completions', state: 'waiting' })).toBe(0);
      expect(scraped.value('switchyard_circuit_breakers_open', { state: 'cooling_down' })).toBe(1);
      expect(scraped.value('switchyard_circuit_breakers_open', { state: 'half_open' })).toBe(1);
    } finally {
      await job.remove();
      await redis.hdel(openBreakersKey(config.redisPrefix), cooling, probing);
    }
    expect((await scrape()).value('switchyard_circuit_breakers_open', { state: 'cooling_down' })).toBe(0);
  });
});

describe('after completions', () => {
  it('counts requests by route template, completions, tokens, cost and savings per Space, upstream calls per provider and model', async () => {
    const { tenant } = await space();
    const client = clientOf(tenant.api_key);
    const before = await scrape();
    const secret = `secret text ${randomUUID()}`;
    await client.chat.completions.create({ model: 'switchyard', messages: [{ role: 'user', content: secret }] });
    const stream = await client.chat.completions.create({ model: 'switchyard', messages: [{ role: 'user', content: secret }], stream: true });
    for await (const chunk of stream) expect(chunk.object).toBe('chat.completion.chunk');
    const missingId = randomUUID();
    await request(server.server).get(`/nothing/here/${missingId}`).expect(404);
    await request(server.server).get(`/v1/apps/${tenant.app_id}/models`).set(tenant.auth).expect(200);

    const after = await eventually(async () => {
      const now = await scrape();
      return now.value('switchyard_completions_total', { app_id: tenant.app_id }) >= 2 ? now : null;
    });
    const delta = (name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels);
    const app_id = tenant.app_id;

    expect(delta('switchyard_http_requests_total', { method: 'POST', route: '/v1/chat/completions', status: '200' })).toBe(2);
    expect(delta('switchyard_http_request_duration_seconds_count', { method: 'POST', route: '/v1/chat/completions', status: '200' })).toBe(2);
    expect(delta('switchyard_http_requests_total', { method: 'GET', route: '/v1/apps/:app_id/models', status: '200' })).toBe(1);
    expect(delta('switchyard_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(after.value('switchyard_completions_total', { app_id, status: '200' })).toBe(2);
    expect(after.value('switchyard_tokens_total', { app_id, kind: 'prompt' })).toBeGreaterThan(0);
    expect(after.value('switchyard_tokens_total', { app_id, kind: 'completion' })).toBeGreaterThan(0);
    expect(after.value('switchyard_cost_usd_total', { app_id })).toBeGreaterThan(0);
    expect(after.value('switchyard_savings_usd_total', { app_id })).toBeGreaterThan(0);
    expect(delta('switchyard_upstream_calls_total', { provider: 'openai', model: 'first', status: '200' })).toBe(2);
    expect(delta('switchyard_upstream_call_duration_seconds_count', { provider: 'openai', model: 'first' })).toBe(2);
    expect(delta('switchyard_job_duration_seconds_count', { queue: 'completions', outcome: 'completed' })).toBe(2);

    // Scrape-time gauges and the process's own metrics.
    expect(after.labelValues('switchyard_queue_jobs', 'queue')).toEqual(expect.arrayContaining(['completions', 'batches', 'webhooks']));
    expect(after.families.get('switchyard_circuit_breakers_open')?.type).toBe('gauge');
    expect(after.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(after.families.has('nodejs_heap_size_used_bytes')).toBe(true);

    // Templates, never raw paths; ids only as the Space label; no content anywhere.
    for (const route of after.labelValues('switchyard_http_requests_total', 'route'))
      expect(route === 'unmatched' || !/[0-9a-f]{8}-[0-9a-f]{4}/.test(route)).toBe(true);
    const text = after.samples.map((s) => JSON.stringify(s)).join('\n');
    expect(text).not.toContain(missingId);
    expect(text).not.toContain(secret);
  });

  it('counts a failing upstream: its errors, the retry and the failover to the next model', async () => {
    const { tenant, models } = await space({ max_same_model_retries: 1 });
    script(sim, models.first, times(2, { kind: 'status', status: 503 }));
    const before = await scrape();
    const completion = await clientOf(tenant.api_key).chat.completions.create({ model: 'switchyard', messages: [{ role: 'user', content: 'Hello' }] });
    expect(completion.model).toBe('runner-up');
    const after = await eventually(async () => {
      const now = await scrape();
      return now.value('switchyard_completions_total', { app_id: tenant.app_id }) >= 1 ? now : null;
    });
    const delta = (name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels);
    expect(delta('switchyard_upstream_calls_total', { provider: 'openai', model: 'first', status: '503' })).toBe(2);
    expect(delta('switchyard_upstream_errors_total', { provider: 'openai', model: 'first', kind: 'server_error' })).toBe(2);
    expect(delta('switchyard_upstream_retries_total', { provider: 'openai', model: 'first' })).toBe(1);
    expect(delta('switchyard_upstream_failovers_total', { provider: 'openai', model: 'runner-up' })).toBe(1);
    expect(delta('switchyard_upstream_calls_total', { provider: 'openai', model: 'runner-up', status: '200' })).toBe(1);
  });

  it('counts a request every model failed under its status', async () => {
    const { tenant, models } = await isolatedSpace(h, { models: [{ name: 'only' }], update: { policies: { max_same_model_retries: 1 } } });
    script(sim, models.only, times(2, { kind: 'status', status: 503 }));
    const failed = await clientOf(tenant.api_key)
      .chat.completions.create({ model: 'switchyard', messages: [{ role: 'user', content: 'Hello' }] })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect((failed as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    const after = await eventually(async () => {
      const now = await scrape();
      return now.value('switchyard_completions_total', { app_id: tenant.app_id }) >= 1 ? now : null;
    });
    expect(after.value('switchyard_completions_total', { app_id: tenant.app_id, status: '502' })).toBe(1);
    expect(after.value('switchyard_http_requests_total', { method: 'POST', route: '/v1/chat/completions', status: '502' })).toBeGreaterThanOrEqual(1);
  });
});
