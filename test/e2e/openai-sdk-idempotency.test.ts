import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { setModels, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import type { Tenant } from '../helpers/test-context';

/**
 * Idempotency-Key through the official OpenAI SDK, against Switchyard on a real port with its local test
 * models. The SDK's `idempotencyKey` request option is sent only by a client that names the header
 * (Stainless clients do so through `idempotencyHeader`; the OpenAI class leaves it unset), so a client
 * either names it in a subclass, or sends the header itself through the `headers` request option.
 */
class IdempotentOpenAI extends OpenAI {
  protected override idempotencyHeader = 'Idempotency-Key';
}

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
  await setModels(h.app, tenant, { 'test-echo': true, 'test-slow': true });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
});

const parentLogs = () => h.services.db.log.count({ where: { app_id: tenant.app_id, parent_id: null } });

describe('openai SDK with Idempotency-Key', () => {
  it('replays the answer for the same idempotencyKey request option', async () => {
    const client = new IdempotentOpenAI({ apiKey: tenant.api_key, baseURL });
    const idempotencyKey = `sdk-${randomUUID()}`;
    const before = await parentLogs();
    const params = { model: 'test-echo', messages: [{ role: 'user' as const, content: 'Only once, please' }] };
    const first = await client.chat.completions.create(params, { idempotencyKey }).withResponse();
    const second = await client.chat.completions.create(params, { idempotencyKey }).withResponse();
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    expect(second.response.headers.get('idempotent-replayed')).toBe('true');
    expect(second.data).toEqual(first.data);
    expect(second.response.headers.get('x-switchyard-log-id')).toBe(first.data.id);
    expect(await parentLogs()).toBe(before + 1);
  });

  it('replays a stream for the same header sent through the headers option', async () => {
    const client = new OpenAI({ apiKey: tenant.api_key, baseURL });
    const key = randomUUID();
    const params = { model: 'test-echo', stream: true as const, messages: [{ role: 'user' as const, content: 'Stream it once' }] };
    const read = async () => {
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const chunk of await client.chat.completions.create(params, { headers: { 'Idempotency-Key': key } })) chunks.push(chunk);
      return chunks;
    };
    const first = await read();
    const second = await read();
    expect(first.length).toBeGreaterThan(1);
    expect(second).toEqual(first);
    expect(first.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Stream it once');
  });

  it("turns the SDK's own retries into one run: a repeat during the run waits on 409 and gets the same answer", async () => {
    // test-slow answers in 1.5 s and each 409 asks for 1 s: six retries leave slack on a loaded machine.
    const client = new IdempotentOpenAI({ apiKey: tenant.api_key, baseURL, maxRetries: 6 });
    const idempotencyKey = `sdk-${randomUUID()}`;
    const before = await parentLogs();
    const params = { model: 'test-slow', messages: [{ role: 'user' as const, content: 'Slowly' }] };
    const first = client.chat.completions.create(params, { idempotencyKey });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const repeat = await client.chat.completions.create(params, { idempotencyKey }).withResponse();
    expect(repeat.response.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.data).toEqual(await first);
    expect(await parentLogs()).toBe(before + 1);
  });
});
