import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { eventually, isolatedSpace, script } from '../helpers/completion-fixtures';
import type { CompletionsHarness } from '../helpers/completions';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { createTestContext, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { startSearxngSimulator } from '../simulator/plugins/searxng';
import type { SearchSimulator } from '../simulator/plugins/search-server';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * Traces as an operator gets them: the service started from source (SWITCHYARD_ROLE=single) with only
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP/HTTP receiver, called with the OpenAI SDK. The
 * API's span, the job's span as its child (the context carried in the job), each plugin run and
 * upstream call as the job's children, one trace id, an incoming `traceparent` honoured, and no prompt
 * or answer in what is exported. (A real process, too, because the exporter loads its HTTP client with
 * a dynamic import, which Jest's module sandbox refuses.)
 */
const ROOT = join(__dirname, '..', '..');
const prefix = `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`;

let sim: Simulator;
let searx: SearchSimulator;
let receiver: OtlpReceiver;
let ctx: TestContext;
let service: ChildProcess;
let baseURL: string;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  [sim, searx, receiver] = await Promise.all([startSimulator(), startSearxngSimulator(), startOtlpReceiver()]);
  ctx = createTestContext({ redisPrefix: prefix });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SWITCHYARD_ROLE: 'single',
    REDIS_PREFIX: prefix,
    // Port 0: the service takes a free port and logs it. A port picked here beforehand could be taken by
    // another process (a second test run on the machine) before the service binds it, and /readyz then
    // answered by that process.
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    OPENAI_API_KEY: 'sim-key',
    OPENAI_BASE_URL: sim.baseUrls.openai,
    WEB_SEARCH_BACKEND: 'searxng',
    SEARXNG_BASE_URL: searx.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url.replace(/\/v1\/traces$/, ''),
    OTEL_SERVICE_NAME: 'switchyard-e2e',
    OTEL_BSP_SCHEDULE_DELAY: '200',
  };
  service = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  createInterface({ input: service.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    if (line.startsWith('{')) logLines.push(JSON.parse(line) as Record<string, unknown>);
  });
  const started = await eventually(() => logLines.find((line) => line.msg === 'switchyard started') ?? null, 60_000);
  baseURL = `http://127.0.0.1:${String(started.port)}`;
  await eventually(
    async () =>
      (await fetch(`${baseURL}/readyz`).then(
        (r) => r.ok,
        () => false,
      )) || null,
    60_000,
  );
}, 90_000);
afterAll(async () => {
  if (service.exitCode === null) {
    const exited = new Promise((resolve) => service.once('exit', resolve));
    service.kill('SIGTERM');
    await exited;
  }
  await ctx.close();
  await Promise.all([sim.close(), searx.close(), receiver.close()]);
});

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;
const STATUS_ERROR = 2;

async function answeringSpace(policies: object = {}) {
  const harness = { ...ctx, workers: { close: async () => undefined } } as CompletionsHarness;
  return isolatedSpace(harness, { models: [{ name: 'answering' }], update: { policies } });
}

/** The spans of one trace, once its job's span (which ends after the answer went out) has arrived. */
function traceOf(traceId: string): Promise<ReceivedSpan[]> {
  return eventually(() => {
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    return spans.some((span) => span.name === 'job completions') && spans.some((span) => span.kind === SERVER) ? spans : null;
  });
}

function one(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0] as ReceivedSpan;
}

const traceparent = (traceId: string) => `00-${traceId}-${randomBytes(8).toString('hex')}-01`;

type WithPlugins = ChatCompletionCreateParamsNonStreaming & { plugins: string[] };

describe('OpenTelemetry traces over OTLP/HTTP', () => {
  it('continues an incoming traceparent: API span → job span → plugin and upstream spans, one trace, no content', async () => {
    const { tenant } = await answeringSpace();
    const client = new OpenAI({ apiKey: tenant.api_key, baseURL: `${baseURL}/v1`, maxRetries: 0 });
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const secret = `private question ${randomUUID()}`;
    const params: WithPlugins = { model: 'answering', messages: [{ role: 'user', content: secret }], plugins: ['web-search'] };
    const { data, response } = await client.chat.completions.create(params, { headers: { traceparent: `00-${traceId}-${callerSpanId}-01` } }).withResponse();
    expect(data.choices[0]?.message.content).toBe(`Echo: ${secret}`);

    const spans = await traceOf(traceId);
    const logId = response.headers.get('x-switchyard-log-id');
    const api = one(spans, 'POST /v1/chat/completions');
    expect(api).toMatchObject({ kind: SERVER, parentSpanId: callerSpanId });
    expect(api.attributes).toMatchObject({ 'http.route': '/v1/chat/completions', 'http.response.status_code': 200, 'switchyard.log_id': logId });
    expect(api.resource).toMatchObject({ 'service.name': 'switchyard-e2e', 'switchyard.role': 'single' });
    const job = one(spans, 'job completions');
    expect(job).toMatchObject({ kind: CONSUMER, parentSpanId: api.spanId });
    expect(job.attributes).toMatchObject({
      'messaging.destination.name': 'completions',
      'switchyard.app_id': tenant.app_id,
      'switchyard.log_id': logId,
      'switchyard.status_code': 200,
    });
    const plugin = one(spans, 'plugin web-search');
    expect(plugin).toMatchObject({ parentSpanId: job.spanId });
    expect(plugin.attributes).toMatchObject({ 'switchyard.plugin': 'web-search', 'switchyard.status_code': 200 });
    const upstream = one(spans, 'chat answering');
    expect(upstream).toMatchObject({ kind: CLIENT, parentSpanId: job.spanId });
    expect(upstream.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'answering',
      'switchyard.status_code': 200,
      'switchyard.retry': 0,
    });
    expect(Number(upstream.attributes['gen_ai.usage.output_tokens'])).toBeGreaterThan(0);

    const exported = receiver.bodies.join('\n');
    expect(exported).not.toContain(secret);
    expect(exported).not.toContain(tenant.api_key);
  });

  it('names the request alike in the API and the worker log lines', async () => {
    const { tenant, models } = await answeringSpace({ max_same_model_retries: 1 });
    script(sim, models.answering, [{ kind: 'status', status: 503 }]);
    const client = new OpenAI({ apiKey: tenant.api_key, baseURL: `${baseURL}/v1`, maxRetries: 0 });
    const requestId = `client-${randomUUID()}`;
    const { response } = await client.chat.completions
      .create({ model: 'answering', messages: [{ role: 'user', content: 'Hello' }] }, { headers: { 'X-Request-Id': requestId } })
      .withResponse();
    expect(response.headers.get('x-request-id')).toBe(requestId);
    const logId = response.headers.get('x-switchyard-log-id');
    // The API's access line, and the worker's line about the failed upstream call.
    const access = await eventually(() => logLines.find((line) => line.msg === 'request completed' && line.request_id === requestId));
    const worker = await eventually(() => logLines.find((line) => line.msg === 'upstream call failed' && line.log_id === logId));
    expect(access).toMatchObject({ request_id: requestId, log_id: logId });
    expect(worker).toMatchObject({ request_id: requestId, log_id: logId, app_id: tenant.app_id });
  });

  it('makes one span per upstream attempt, the failed one marked as an error', async () => {
    const { tenant, models } = await answeringSpace({ max_same_model_retries: 1 });
    script(sim, models.answering, [{ kind: 'status', status: 503 }]);
    const client = new OpenAI({ apiKey: tenant.api_key, baseURL: `${baseURL}/v1`, maxRetries: 0 });
    const traceId = randomBytes(16).toString('hex');
    await client.chat.completions.create(
      { model: 'answering', messages: [{ role: 'user', content: 'Hello' }], stream: false },
      { headers: { traceparent: traceparent(traceId) } },
    );

    const spans = await traceOf(traceId);
    const job = one(spans, 'job completions');
    const calls = spans
      .filter((span) => span.name === 'chat answering')
      .sort((a, b) => Number(a.attributes['switchyard.retry']) - Number(b.attributes['switchyard.retry']));
    expect(calls.map((span) => [span.parentSpanId, span.status, span.attributes['switchyard.status_code'], span.attributes['error.type']])).toEqual([
      [job.spanId, STATUS_ERROR, 503, 'server_error'],
      [job.spanId, 0, 200, undefined],
    ]);
  });

  it('starts a trace of its own for a request without traceparent, streamed', async () => {
    const { tenant } = await answeringSpace();
    const client = new OpenAI({ apiKey: tenant.api_key, baseURL: `${baseURL}/v1`, maxRetries: 0 });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'answering', messages: [{ role: 'user', content: 'Hello again' }], stream: true })
      .withResponse();
    for await (const chunk of stream) expect(chunk.object).toBe('chat.completion.chunk');
    const logId = response.headers.get('x-switchyard-log-id');
    const api = await eventually(() => receiver.spans.find((span) => span.kind === SERVER && span.attributes['switchyard.log_id'] === logId));
    expect(api.parentSpanId).toBe('');
    const spans = await traceOf(api.traceId);
    const job = one(spans, 'job completions');
    expect(job.parentSpanId).toBe(api.spanId);
    expect(one(spans, 'chat answering').parentSpanId).toBe(job.spanId);
  });
});
