import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import type { SearchResultItem } from '../../src/domain/plugin-output';
import type { Model, Prisma } from '../../src/generated/prisma/client';
import type { AttemptRecord } from '../../src/pipeline/attempt-record';
import { logRowsFor, type RequestOutcome } from '../../src/pipeline/log-rows';
import { RunTrace } from '../../src/pipeline/run-trace';
import type { CompletionJob } from '../../src/queue/payloads';
import type { LogInsert } from '../../src/store/log-batcher';
import { batchLine, chatBody, createBatch, uploadInput } from '../helpers/batch-fixtures';
import { testResult } from '../helpers/completion-result';
import { routable } from '../helpers/routable-model';
import type { Tenant, TestContext } from '../helpers/test-context';

/**
 * An organization as a newcomer's looks after a week, for the console's width tests: a service with no
 * provider key (only the keyless test models can answer, two of them on), several logs with long model
 * names and prompts, a web-search request at privacy levels 1 and 2 written as the pipeline writes it, a
 * request refused before routing, a batch, a prompt waiting for review and a second key.
 */
export interface WidthsSeed {
  /** The web-search request at privacy level 1, and the same at level 2. */
  searchLogId: string;
  maskedSearchLogId: string;
  /** Its plugin step's own time, in ms, and its model call's. */
  searchLatencyMs: number;
  modelLatencyMs: number;
  sources: SearchResultItem[];
  /** The test models switched on: the only models that can answer. */
  usable: string[];
  batchId: string;
  promptTitle: string;
}

/** Every provider without a key: only keyless providers (the test models) can answer. */
export function keylessProviders(): Config['providers'] {
  const providers = loadConfig().providers;
  return Object.fromEntries(Object.entries(providers).map(([id, settings]) => [id, { baseUrl: settings.baseUrl }])) as Config['providers'];
}

const SEARCH_LATENCY_MS = 32;
const MODEL_LATENCY_MS = 0;

function sourcesFor(question: string): SearchResultItem[] {
  return [1, 2, 3].map((index) => ({
    index,
    source: 'web',
    title: `Result ${index} about ${question}`,
    url: `https://news.example.org/${'very-long-path-segment/'.repeat(4)}article-${index}?utm_source=switchyard&utm_medium=console-width-test`,
    score: 2 - index / 10,
    snippet: `Snippet ${index}: what the web says about ${question}.`,
  }));
}

/** A completion whose web search ran before its one model call, as the worker leaves it (`logRowsFor`). */
function searchOutcome(owner: Tenant, answering: Model, { privacyLevel, question }: { privacyLevel: 1 | 2; question: string }): RequestOutcome {
  const trace = new RunTrace();
  const receivedAt = Date.now() - 60_000;
  const sources = sourcesFor(question);
  trace.addPlugin(
    {
      kind: 'plugin',
      plugin: 'web-search',
      backend: 'web-search:searxng',
      startedAt: receivedAt + 3,
      latencyMs: SEARCH_LATENCY_MS,
      statusCode: 200,
      costUsd: 0.002,
      query: question,
      results: sources.length,
      artifacts: 0,
      cached: false,
    },
    { id: 'web-search', trigger: 'requested', reason: 'named in the request', status: 'ok', latency_ms: SEARCH_LATENCY_MS, cost: 0.002 },
  );
  trace.searchResults.push(...sources);
  const model = routable({ id: answering.id, model: answering.model, namespace: answering.namespace, provider: answering.provider });
  const usage = { prompt_tokens: 300, completion_tokens: 8, total_tokens: 308 };
  const call: AttemptRecord = { kind: 'model', model, retry: 0, startedAt: receivedAt + 40, latencyMs: MODEL_LATENCY_MS, statusCode: 200, usage };
  trace.addAttempts([call]);
  trace.addAnswer(model, { usage, latencyMs: MODEL_LATENCY_MS });
  const content = `Echo: ${question}`;
  const result = testResult({
    answer: {
      model: { id: answering.id, model: answering.model, namespace: answering.namespace, provider: answering.provider, owner: answering.owner, at: '' },
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage,
    },
    report: { appId: owner.app_id, latencyMs: MODEL_LATENCY_MS, searchResults: trace.searchResults, plugins: trace.plugins, costs: trace.costs() },
  });
  const job = {
    requestId: randomUUID(),
    orgId: owner.org_id,
    appId: owner.app_id,
    idpId: 'owner',
    receivedAt,
    privacyLevel,
    request: { chat: { messages: [{ role: 'user', content: question }] }, labels: {} },
    payload: { model: answering.model, plugins: ['web-search'], stream: false },
  };
  return { job: job as unknown as CompletionJob, isTest: false, trace, ended: { result }, responseText: content };
}

async function insertRows(ctx: TestContext, rows: LogInsert[]): Promise<void> {
  for (const row of rows) await ctx.services.db.log.create({ data: { ...row, timestamp: BigInt(row.timestamp) } as Prisma.LogUncheckedCreateInput });
}

interface SearchLog {
  owner: Tenant;
  answering: Model;
  privacyLevel: 1 | 2;
  question: string;
}

async function insertSearch(ctx: TestContext, { owner, answering, ...options }: SearchLog): Promise<string> {
  const rows = logRowsFor(searchOutcome(owner, answering, options));
  if (!rows) throw new Error('a log at privacy level 1 or 2 has rows');
  await insertRows(ctx, [rows.parent, ...rows.children]);
  return rows.parent.id as string;
}

/** Plain logs: long model names, long prompts, a failure, and a request refused before any model was chosen. */
async function insertPlainLogs(ctx: TestContext, owner: Tenant, models: Model[]): Promise<void> {
  const db = ctx.services.db;
  const now = Date.now();
  const prompt = 'Summarise the attached quarterly report for the board, keeping every figure, in a table with one row per region and a paragraph on risks';
  for (const [i, model] of models.entries()) {
    await db.log.create({
      data: {
        org_id: owner.org_id,
        app_id: owner.app_id,
        model_id: model.id,
        namespace: model.namespace,
        timestamp: BigInt(now - (i + 2) * 3_600_000),
        added_on: new Date(now - (i + 2) * 3_600_000),
        status_code: i === 1 ? 502 : 200,
        latency: 420 + i,
        prompt: `${prompt} (${i})`,
        response_text: 'Done.',
        total_tokens: 1234 + i,
        total_tokens_cost: 0.0123 + i / 1000,
        total_tokens_cost_savings: 0.004,
      },
    });
  }
  await db.log.create({
    data: {
      org_id: owner.org_id,
      app_id: owner.app_id,
      timestamp: BigInt(now - 7_200_000),
      added_on: new Date(now - 7_200_000),
      status_code: 400,
      latency: 2,
      prompt: 'Which model answers this?',
    },
  });
}

export async function seedWidths(ctx: TestContext, app: Express, owner: Tenant): Promise<WidthsSeed> {
  const db = ctx.services.db;
  const usable = ['test-echo', 'test-fixed'];
  const catalog = await db.model.findMany({ where: { app_id: null, org_id: null }, orderBy: { model: 'asc' } });
  for (const name of usable) {
    const model = catalog.find((row) => row.model === name);
    if (!model) throw new Error(`the catalog lacks ${name}`);
    await request(app).put(`/v1/apps/${owner.app_id}/models/${model.id}`).set(owner.auth).send({ active: true }).expect(200);
  }
  const longest = [...catalog].sort((a, b) => b.model.length - a.model.length).slice(0, 4);
  await insertPlainLogs(ctx, owner, longest);
  const echo = catalog.find((row) => row.model === 'test-echo') as Model;
  const searchLogId = await insertSearch(ctx, { owner, answering: echo, privacyLevel: 1, question: 'weather in Paris this weekend' });
  const maskedSearchLogId = await insertSearch(ctx, { owner, answering: echo, privacyLevel: 2, question: 'tide tables for Saint-Malo' });

  await request(app)
    .put('/v1/apps/update')
    .set(owner.auth)
    .send({ id: owner.app_id, description: 'Customer support assistant for the Europe-Middle-East-Africa region, routed by cost first' })
    .expect(200);
  const promptTitle = 'Support tone for escalations';
  const prompt = await request(app)
    .post('/v1/prompts')
    .set(owner.auth)
    .send({ title: promptTitle, description: 'Friendly, short, and never promising refunds', prompt: 'Answer kindly, in two sentences. '.repeat(12) });
  await request(app).post(`/v1/prompts/${prompt.body.id}/publish`).set(owner.auth).expect(200);
  await request(app)
    .post('/v1/keys')
    .set(owner.auth)
    .send({ name: 'nightly-evaluation-pipeline (staging cluster eu-west-1)', role: 'member', allowed_models: usable })
    .expect(201);

  const fileId = await uploadInput(app, owner, [batchLine('a', chatBody('test-echo', 'hi')), batchLine('b', chatBody('test-echo', 'bye'))]);
  const batch = await createBatch(app, owner, fileId);
  await db.batch.update({
    where: { id: batch.id },
    data: {
      status: 'in_progress',
      in_progress_at: new Date(),
      total_count: 2,
      completed_count: 1,
      metadata: { description: 'Nightly evaluation of the support prompts against every model switched on' },
    },
  });
  return {
    searchLogId,
    maskedSearchLogId,
    searchLatencyMs: SEARCH_LATENCY_MS,
    modelLatencyMs: MODEL_LATENCY_MS,
    sources: sourcesFor('weather in Paris this weekend'),
    usable,
    batchId: batch.id,
    promptTitle,
  };
}
