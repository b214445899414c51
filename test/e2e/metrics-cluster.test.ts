import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import OpenAI from 'openai';
import { eventually, isolatedSpace } from '../helpers/completion-fixtures';
import type { CompletionsHarness } from '../helpers/completions';
import { freePort } from '../helpers/free-port';
import { parsePrometheusText, type Scrape } from '../helpers/prometheus-text';
import { createTestContext, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * The deployment layouts, started from source as operators run them: `npm start` (a supervisor with
 * API and worker processes), where one scrape covers every process, on the API port with
 * METRICS_TOKEN and on METRICS_PORT; and a workers-only process, scraped on its METRICS_PORT.
 */
const ROOT = join(__dirname, '..', '..');
const TOKEN = 'cluster-metrics-token-0123456789';
const prefix = `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`;

let sim: Simulator;
let ctx: TestContext;
const running: ChildProcess[] = [];

function start(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      REDIS_PREFIX: prefix,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      OPENAI_API_KEY: 'sim-key',
      OPENAI_BASE_URL: sim.baseUrls.openai,
      SHUTDOWN_GRACE_MS: '3000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  running.push(child);
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function scrape(url: string, token?: string): Promise<Scrape> {
  const res = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  expect(res.status).toBe(200);
  return parsePrometheusText(await res.text());
}

beforeAll(async () => {
  sim = await startSimulator();
  ctx = createTestContext({ redisPrefix: prefix });
});
afterAll(async () => {
  await Promise.all(running.map(stop));
  await ctx.close();
  await sim.close();
});

async function answeringClient(port: number): Promise<{ client: OpenAI; appId: string }> {
  const harness = { ...ctx, workers: { close: async () => undefined } } as CompletionsHarness;
  const { tenant } = await isolatedSpace(harness, { models: [{ name: 'quick' }] });
  return { client: new OpenAI({ apiKey: tenant.api_key, baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 }), appId: tenant.app_id };
}

describe('metrics of every process', () => {
  it('npm start: one scrape of /metrics (API port with the token, or METRICS_PORT) covers the API and the worker processes', async () => {
    const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
    const supervisor = start({ PORT: String(port), API_PROCESSES: '1', WORKER_PROCESSES: '1', METRICS_TOKEN: TOKEN, METRICS_PORT: String(metricsPort) });
    await eventually(async () => ((await ctx.services.queues.completions.getWorkersCount()) >= 1 ? true : null), 90_000);
    await eventually(
      async () =>
        (await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        )) || null,
      90_000,
    );

    const { client, appId } = await answeringClient(port);
    for (let i = 0; i < 3; i += 1) await client.chat.completions.create({ model: 'quick', messages: [{ role: 'user', content: 'hello' }] });

    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
    const viaApi = await eventually(async () => {
      const now = await scrape(`http://127.0.0.1:${port}/metrics`, TOKEN);
      return now.value('switchyard_completions_total', { app_id: appId }) >= 3 ? now : null;
    });
    // The worker process's figures and the API process's, in one answer.
    expect(viaApi.value('switchyard_completions_total', { app_id: appId, status: '200' })).toBe(3);
    expect(viaApi.value('switchyard_job_duration_seconds_count', { queue: 'completions', outcome: 'completed' })).toBe(3);
    expect(viaApi.value('switchyard_http_requests_total', { method: 'POST', route: '/v1/chat/completions', status: '200' })).toBe(3);
    expect(viaApi.value('switchyard_upstream_calls_total', { provider: 'openai', model: 'quick', status: '200' })).toBe(3);
    // Queue depth is shared state: each process reads it, the aggregate keeps one reading, not their sum.
    expect(viaApi.labelValues('switchyard_queue_jobs', 'queue')).toContain('completions');
    expect(viaApi.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);

    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(401);
    const viaMetricsPort = await scrape(`http://127.0.0.1:${metricsPort}/metrics`, TOKEN);
    expect(viaMetricsPort.value('switchyard_completions_total', { app_id: appId, status: '200' })).toBe(3);
    expect(viaMetricsPort.value('switchyard_http_requests_total', { method: 'POST', route: '/v1/chat/completions', status: '200' })).toBe(3);
    await stop(supervisor);
  }, 150_000);

  it('SWITCHYARD_ROLE=workers: scraped on its own METRICS_PORT (loopback, no token configured)', async () => {
    const [apiPort, metricsPort] = await Promise.all([freePort(), freePort()]);
    const api = start({ SWITCHYARD_ROLE: 'api', PORT: String(apiPort) });
    const workers = start({ SWITCHYARD_ROLE: 'workers', METRICS_PORT: String(metricsPort) });
    await eventually(
      async () =>
        (await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
          (r) => r.ok,
          () => false,
        )) || null,
      90_000,
    );
    await eventually(
      async () =>
        (await fetch(`http://127.0.0.1:${apiPort}/readyz`).then(
          (r) => r.ok,
          () => false,
        )) || null,
      90_000,
    );
    // The API process alone, with no METRICS_TOKEN, does not serve them.
    expect((await fetch(`http://127.0.0.1:${apiPort}/metrics`)).status).toBe(404);

    const { client, appId } = await answeringClient(apiPort);
    await client.chat.completions.create({ model: 'quick', messages: [{ role: 'user', content: 'hello' }] });
    const scraped = await eventually(async () => {
      const now = await scrape(`http://127.0.0.1:${metricsPort}/metrics`);
      return now.value('switchyard_completions_total', { app_id: appId }) >= 1 ? now : null;
    });
    expect(scraped.value('switchyard_job_duration_seconds_count', { queue: 'completions', outcome: 'completed' })).toBe(1);
    expect(scraped.value('switchyard_tokens_total', { app_id: appId, kind: 'completion' })).toBeGreaterThan(0);
    await Promise.all([stop(api), stop(workers)]);
  }, 150_000);
});
