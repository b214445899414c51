import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import request from 'supertest';
import type { Log } from '../../src/generated/prisma/client';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { eventually, isolatedSpace, script, userMessage } from '../helpers/completion-fixtures';
import type { Tenant } from '../helpers/test-context';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * How many rows a completion's log takes, and what the logs API shows of them (issue 34): one row for a
 * request answered by one model call, a row and a child per call after a failover, the same figures
 * through `GET /v1/logs/{id}` either way. The completions go through the official OpenAI SDK.
 */

let sim: Simulator;
let h: CompletionsHarness;
let server: Server;
let baseURL: string;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim) });
  server = await new Promise<Server>((resolve) => {
    const listening = h.app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
  await sim.close();
});

const space = () => isolatedSpace(h, { models: [{ name: 'answering', promptCost: 3e-6, completionCost: 1.5e-5 }] });

async function completeWithSdk(tenant: Tenant, content: string): Promise<OpenAI.Chat.Completions.ChatCompletion> {
  const client = new OpenAI({ apiKey: tenant.api_key, baseURL, maxRetries: 0 });
  return client.chat.completions.create({ model: 'answering', messages: userMessage(content) as OpenAI.Chat.ChatCompletionMessageParam[] });
}

/** Every row of the request, its own first, then its children oldest first. */
async function rowsOf(id: string): Promise<Log[]> {
  await eventually(() => h.services.db.log.findUnique({ where: { id } }));
  const children = await h.services.db.log.findMany({ where: { parent_id: id }, orderBy: { timestamp: 'asc' } });
  return [await h.services.db.log.findUniqueOrThrow({ where: { id } }), ...children];
}

/** The figures the API shows of a log or a step. */
const FIGURES = [
  'status_code',
  'latency',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'prompt_tokens_cost',
  'completion_tokens_cost',
  'total_tokens_cost',
  'costs_incurred',
  'namespace',
] as const;
const figures = (log: Record<string, unknown>) => Object.fromEntries(FIGURES.map((name) => [name, log[name]]));
const figuresOfRow = (row: Log) => figures({ ...row, latency: row.latency < 0 ? null : row.latency });

describe('the log of a completion', () => {
  it('answered by one model call is one row, shown with that call as its one step', async () => {
    const { tenant, models } = await space();
    const answer = await completeWithSdk(tenant, 'What is the capital of Norway?');
    const rows = await rowsOf(answer.id);
    expect(rows).toHaveLength(1);
    const [row] = rows as [Log];
    expect(row).toMatchObject({
      parent_id: null,
      model_id: models.answering.id,
      status_code: 200,
      total_tokens: answer.usage?.total_tokens,
      costs_incurred: true,
    });

    const shown = await request(h.app).get(`/v1/logs/${answer.id}?include=children`).set(tenant.auth).expect(200);
    expect(figures(shown.body)).toEqual(figuresOfRow(row));
    expect(shown.body.response).toMatchObject({
      id: answer.id,
      object: 'chat.completion',
      choices: answer.choices,
      usage: answer.usage,
      metadata: { retries: 0 },
    });
    // The call, as the step its child row showed: the same model, tokens and cost as the request.
    expect(shown.body.children).toHaveLength(1);
    const [step] = shown.body.children;
    expect(step).toMatchObject({ id: answer.id, parent_id: answer.id, model: { id: models.answering.id }, status_code: 200, request_type: 'chat_completions' });
    expect(step.payload).toEqual({ step: 'model', model: models.answering.namespace, provider: 'openai', retry: 0 });
    expect(step.response).toEqual({ usage: answer.usage });
    expect(figures(step)).toEqual({ ...figuresOfRow(row), latency: expect.any(Number) });
    expect(step.latency).toBeLessThanOrEqual(row.latency);
    expect(step.timestamp).toBeGreaterThanOrEqual(Number(row.timestamp));

    // Listed once, even with the sub-requests asked for: there are none.
    const listed = await request(h.app).get(`/v1/logs?app_id=${tenant.app_id}&include_children=true`).set(tenant.auth).expect(200);
    expect(listed.body.data.map((log: { id: string }) => log.id)).toEqual([answer.id]);
    const summary = await request(h.app).get(`/v1/logs/summary?group_by=model&app_id=${tenant.app_id}`).set(tenant.auth).expect(200);
    expect(summary.body.data).toEqual([expect.objectContaining({ requests: 1, total_tokens: row.total_tokens, cost: row.total_tokens_cost })]);
  });

  it('after a retry is a row and a child per call, which the API shows as they are stored', async () => {
    const { tenant, models } = await space();
    script(sim, models.answering, [{ kind: 'status', status: 503 }, { kind: 'ok' }]);
    const answer = await completeWithSdk(tenant, 'What is the capital of Sweden?');
    const [row, ...children] = await rowsOf(answer.id);
    expect(children.map((child) => child.status_code)).toEqual([503, 200]);
    expect(children.every((child) => child.parent_id === answer.id)).toBe(true);
    expect(children.map((child) => child.costs_incurred)).toEqual([false, true]);
    expect(row?.total_tokens_cost).toBe(children[1]?.total_tokens_cost);

    const shown = await request(h.app).get(`/v1/logs/${answer.id}?include=children`).set(tenant.auth).expect(200);
    expect(figures(shown.body)).toEqual(figuresOfRow(row as Log));
    expect(shown.body.response.metadata.retries).toBe(1);
    expect(shown.body.children.map((step: { id: string }) => step.id)).toEqual(children.map((child) => child.id));
    expect(shown.body.children.map(figures)).toEqual(children.map(figuresOfRow));
    const child = await request(h.app).get(`/v1/logs/${children[0]?.id}`).set(tenant.auth).expect(200);
    expect(child.body).toMatchObject({ parent_id: answer.id, parent: { id: answer.id }, status_code: 503 });
  });
});
