import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { setModels, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { eventually } from '../helpers/completion-fixtures';
import type { Tenant } from '../helpers/test-context';

/**
 * `Prefer: respond-async` through the official OpenAI SDK, against Switchyard on a real port with its local
 * test model: the SDK sends the header through its `headers` request option and reads the 202 as a raw
 * response (`asResponse()`, since the body is a job, not a chat.completion); the job is then polled with fetch.
 */
let h: CompletionsHarness;
let server: Server;
let baseURL: string;
let tenant: Tenant;

beforeAll(async () => {
  h = startCompletionsHarness();
  server = await new Promise<Server>((resolve) => {
    const listening = h.app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  tenant = await h.tenant();
  await setModels(h.app, tenant, { 'test-echo': true });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
});

interface JobBody {
  id: string;
  object: string;
  status: string;
  response: { status_code: number; request_id: string; body: OpenAI.Chat.Completions.ChatCompletion } | null;
}

async function readJob(location: string): Promise<{ status: number; body: JobBody }> {
  const res = await fetch(new URL(location, baseURL), { headers: { Authorization: `Bearer ${tenant.api_key}` } });
  return { status: res.status, body: (await res.json()) as JobBody };
}

/** The job once it has ended, however it ended: a job that failed ends the wait at once, and its body says why. */
function endedJob(location: string): Promise<JobBody> {
  return eventually(async () => {
    const read = await readJob(location);
    expect(read.status).toBe(200);
    return read.body.status === 'queued' || read.body.status === 'in_progress' ? null : read.body;
  });
}

/** All but the ids, times and measured figures. */
function comparable({ id: _id, created: _created, metadata, ...rest }: OpenAI.Chat.Completions.ChatCompletion & { metadata?: Record<string, unknown> }) {
  const { latency: _latency, scores: _scores, ...meta } = metadata ?? {};
  return { ...rest, metadata: meta };
}

describe('openai SDK with Prefer: respond-async', () => {
  it('gets 202 and a job, whose response is the body the synchronous call returns', async () => {
    const client = new OpenAI({ apiKey: tenant.api_key, baseURL });
    const params = { model: 'test-echo', messages: [{ role: 'user' as const, content: 'Echo me later' }] };
    const accepted = await client.chat.completions.create(params, { headers: { Prefer: 'respond-async' } }).asResponse();
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('preference-applied')).toBe('respond-async');
    const job = (await accepted.json()) as JobBody;
    expect(job).toMatchObject({ object: 'chat.completion.job', status: 'queued', response: null });
    const location = accepted.headers.get('location');
    expect(location).toBe(`/v1/jobs/${job.id}`);

    const done = await endedJob(location ?? '');
    expect(done).toMatchObject({ status: 'completed' });
    const sync = await client.chat.completions.create(params);
    expect(done.response?.status_code).toBe(200);
    expect(done.response?.body.id).toBe(job.id);
    expect(done.response?.body.choices[0]?.message.content).toBe('Echo me later');
    expect(comparable(done.response?.body as OpenAI.Chat.Completions.ChatCompletion)).toEqual(comparable(sync));
  });

  it('names the model that answered once a job of an automatic choice has completed', async () => {
    const client = new OpenAI({ apiKey: tenant.api_key, baseURL });
    const accepted = await client.chat.completions
      .create({ messages: [{ role: 'user', content: 'Pick one for me' }] } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, {
        headers: { Prefer: 'respond-async' },
      })
      .asResponse();
    expect(accepted.status).toBe(202);
    const job = (await accepted.json()) as JobBody & { model: string | null };
    expect(job.model).toBeNull();
    const done = (await endedJob(accepted.headers.get('location') ?? '')) as JobBody & { model: string | null };
    expect(done).toMatchObject({ status: 'completed' });
    expect(done.response?.status_code).toBe(200);
    expect(done.model).toBe(done.response?.body.model);
    expect(done.model).toEqual(expect.any(String));
  });

  it('refuses stream: true with the header: the SDK raises a 400 naming stream', async () => {
    const client = new OpenAI({ apiKey: tenant.api_key, baseURL, maxRetries: 0 });
    const call = client.chat.completions.create(
      { model: 'test-echo', stream: true, messages: [{ role: 'user', content: 'x' }] },
      { headers: { Prefer: 'respond-async' } },
    );
    await expect(call).rejects.toMatchObject({ status: 400, param: 'stream' });
  });
});
