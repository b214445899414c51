import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import request from 'supertest';
import { batchLine, chatBody, sdkUpload, waitForBatch } from '../helpers/batch-fixtures';
import { testBatchConfig } from '../helpers/batch-config';
import { eventually } from '../helpers/completion-fixtures';
import { setModels, simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import type { Tenant } from '../helpers/test-context';
import { startSimulator, type Simulator } from '../simulator/server';

/** OpenAI's Batch API through the official SDK: upload, create, poll, download; each line a real completion through the simulator. */

let sim: Simulator;
let h: CompletionsHarness;
let server: Server;
let tenant: Tenant;
let client: OpenAI;
let baseURL: string;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim), batches: testBatchConfig() });
  server = await new Promise<Server>((resolve) => {
    const listening = h.app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  tenant = await h.tenant();
  await setModels(h.app, tenant, { 'gpt-4.1-mini': true, 'claude-haiku-4-5': true });
  client = new OpenAI({ apiKey: tenant.api_key, baseURL, maxRetries: 0 });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
  await sim.close();
});

async function contentLines(fileId: string | null | undefined): Promise<Record<string, unknown>[]> {
  if (!fileId) return [];
  const text = await (await client.files.content(fileId)).text();
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('batches through the SDK', () => {
  it('runs every line as a completion and gives output and error files in input order, in OpenAI line shape', async () => {
    const input = await sdkUpload(client, [
      batchLine('first', chatBody('gpt-4.1-mini', 'One')),
      batchLine('second', chatBody('claude-haiku-4-5', 'Two')),
      batchLine('broken', chatBody('no-such-model', 'Three')),
      batchLine('fourth', chatBody('gpt-4.1-mini', 'Four')),
    ]);
    const created = await client.batches.create({
      input_file_id: input,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { job: 'nightly' },
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^batch_[0-9a-f]{24}$/),
      object: 'batch',
      endpoint: '/v1/chat/completions',
      input_file_id: input,
      completion_window: '24h',
      status: 'validating',
      output_file_id: null,
      error_file_id: null,
      errors: null,
      metadata: { job: 'nightly' },
      request_counts: { total: 0, completed: 0, failed: 0 },
    });
    expect(created.expires_at).toBe(created.created_at + 24 * 3600);
    const done = await waitForBatch(() => client.batches.retrieve(created.id));
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 4, completed: 3, failed: 1 } });
    for (const stamp of ['in_progress_at', 'finalizing_at', 'completed_at'] as const) expect(done[stamp]).toEqual(expect.any(Number));
    expect(done.failed_at).toBeNull();

    const output = await contentLines(done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(['first', 'second', 'fourth']);
    const first = output[0] as { id: string; response: { status_code: number; request_id: string; body: Record<string, unknown> }; error: null };
    expect(Object.keys(first)).toEqual(['id', 'custom_id', 'response', 'error']);
    expect(first.id).toMatch(/^batch_req_[0-9a-f]{32}$/);
    expect(first.error).toBeNull();
    expect(first.response).toMatchObject({ status_code: 200, request_id: expect.any(String) });
    expect(first.response.body).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-4.1-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Echo: One' }, finish_reason: 'stop' }],
    });
    expect(first.response.body.id).toBe(first.response.request_id);
    expect(output[1]).toMatchObject({ custom_id: 'second', response: { status_code: 200, body: { model: 'claude-haiku-4-5' } } });

    const errors = await contentLines(done.error_file_id);
    expect(errors).toEqual([
      {
        id: expect.stringMatching(/^batch_req_/),
        custom_id: 'broken',
        response: {
          status_code: 404,
          request_id: expect.any(String),
          body: { error: { code: 'not_found', type: 'not_found_error', param: 'model', message: "Model 'no-such-model' does not exist." } },
        },
        error: null,
      },
    ]);
    const outputFile = await client.files.retrieve(done.output_file_id as string);
    expect(outputFile).toMatchObject({ purpose: 'batch_output', filename: `${created.id}_output.jsonl` });

    // bull-board shows the batch's job with its progress, and a job per line holding ids only.
    const job = await eventually(async () => {
      const found = await h.services.queues.batches.getJob(created.id);
      return found && (await found.isCompleted()) ? found : null;
    });
    expect(job.progress).toEqual({ status: 'completed', total: 4, completed: 3, failed: 1, in_flight: 0 });
    const lineJob = await h.services.queues.batchLines.getJob(`${created.id}-1`);
    expect(lineJob?.data).toEqual({ batchId: created.id, line: 1 });
    expect(lineJob?.returnvalue).toEqual({ state: 'succeeded', status_code: 200, request_id: first.response.request_id });

    // Each line is a real completion of the Space: it has its log, with its cost.
    const log = await request(h.app).get(`/v1/logs/${first.response.request_id}`).set(tenant.auth);
    expect(log.status).toBe(200);
    expect(log.body).toMatchObject({ id: first.response.request_id, status_code: 200 });
    expect(log.body.total_tokens_cost).toBeGreaterThan(0);
  });

  it('fails validation with line numbers before any model is called', async () => {
    const before = sim.requests.length;
    const input = await sdkUpload(client, [
      batchLine('ok', chatBody('gpt-4.1-mini', 'fine')),
      '{"custom_id": "x", "method": "POST", ',
      batchLine('ok', chatBody('gpt-4.1-mini', 'duplicate')),
      batchLine('get', chatBody('gpt-4.1-mini', 'x'), { method: 'GET' }),
      batchLine('url', chatBody('gpt-4.1-mini', 'x'), { url: '/v1/embeddings' }),
      batchLine('stream', { ...chatBody('gpt-4.1-mini', 'x'), stream: true }),
      batchLine('nomsg', { model: 'gpt-4.1-mini', messages: [] }),
      JSON.stringify({ method: 'POST', url: '/v1/chat/completions', body: chatBody('gpt-4.1-mini', 'x') }),
    ]);
    const created = await client.batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const failed = await waitForBatch(() => client.batches.retrieve(created.id));
    expect(failed.status).toBe('failed');
    expect(failed.failed_at).toEqual(expect.any(Number));
    expect(failed.errors?.object).toBe('list');
    expect((failed.errors?.data ?? []).map((e) => [e.line, e.code, e.param])).toEqual([
      [2, 'invalid_json', null],
      [3, 'duplicate_custom_id', 'custom_id'],
      [4, 'invalid_method', 'method'],
      [5, 'invalid_url', 'url'],
      [6, 'invalid_body', 'body.stream'],
      [7, 'invalid_body', 'body.messages'],
      [8, 'invalid_custom_id', 'custom_id'],
    ]);
    expect(sim.requests.length).toBe(before);
    expect(failed.output_file_id).toBeNull();
  });

  it('refuses other endpoints and windows naming the field, and lists and pages batches', async () => {
    const input = await sdkUpload(client, [batchLine('a', chatBody('gpt-4.1-mini', 'x'))]);
    await expect(client.batches.create({ input_file_id: input, endpoint: '/v1/embeddings', completion_window: '24h' })).rejects.toMatchObject({
      status: 400,
      param: 'endpoint',
    });
    const window = await request(h.app)
      .post('/v1/batches')
      .set(tenant.auth)
      .send({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '48h' });
    expect(window.status).toBe(400);
    expect(window.body.error.param).toBe('completion_window');
    await expect(
      client.batches.create({ input_file_id: 'file-000000000000000000000000', endpoint: '/v1/chat/completions', completion_window: '24h' }),
    ).rejects.toMatchObject({ status: 404, param: 'input_file_id' });
    const page = await client.batches.list({ limit: 1 });
    expect(page.data).toHaveLength(1);
    expect(page.has_more).toBe(true);
    const ids: string[] = [];
    for await (const batch of client.batches.list({ limit: 1 })) ids.push(batch.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(2);
  });

  it("answers 404 for another organization's batch and input file", async () => {
    const input = await sdkUpload(client, [batchLine('a', chatBody('gpt-4.1-mini', 'x'))]);
    const mine = await client.batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const other = await h.tenant();
    const otherClient = new OpenAI({ apiKey: other.api_key, baseURL, maxRetries: 0 });
    await expect(otherClient.batches.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(otherClient.batches.cancel(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(otherClient.batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '24h' })).rejects.toMatchObject({
      status: 404,
    });
    expect((await otherClient.batches.list()).data.map((b) => b.id)).not.toContain(mine.id);
    await waitForBatch(() => client.batches.retrieve(mine.id));
  });

  it('refuses a batch in a Space at privacy level 3', async () => {
    const strict = await h.tenant();
    await request(h.app)
      .put('/v1/apps/update')
      .set(strict.auth)
      .send({ id: strict.app_id, policies: { privacy_level: 3 } })
      .expect(200);
    const strictClient = new OpenAI({ apiKey: strict.api_key, baseURL, maxRetries: 0 });
    const input = await sdkUpload(strictClient, [batchLine('a', chatBody('gpt-4.1-mini', 'x'))]);
    await expect(strictClient.batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '24h' })).rejects.toMatchObject({
      status: 400,
      param: 'policies.privacy_level',
    });
  });
});

describe("OpenAI's 50,000-line limit", () => {
  it('validates a 50,000-line file to its last line, and refuses a 50,001-line one at upload', async () => {
    const body = JSON.stringify(chatBody('gpt-4.1-mini', 'x'));
    const lines = Array.from({ length: 50_000 }, (_, i) => `{"custom_id":"c${i}","method":"POST","url":"/v1/chat/completions","body":${body}}`);
    lines[49_999] = '{"custom_id":"last","method":"GET","url":"/v1/chat/completions","body":{}}';
    const before = sim.requests.length;
    const input = await sdkUpload(client, lines);
    const batch = await client.batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const failed = await waitForBatch(() => client.batches.retrieve(batch.id), { timeoutMs: 60_000 });
    expect(failed.status).toBe('failed');
    expect(failed.errors?.data).toEqual([{ code: 'invalid_method', message: "'method' must be 'POST'.", param: 'method', line: 50_000 }]);
    expect(failed.request_counts?.total).toBe(50_000);
    expect(sim.requests.length).toBe(before);
    expect(await h.services.db.batchLine.count({ where: { batch_id: batch.id } })).toBe(0);
    await expect(sdkUpload(client, [...lines, lines[0] as string])).rejects.toMatchObject({ status: 400, param: 'file' });
  }, 90_000);
});
