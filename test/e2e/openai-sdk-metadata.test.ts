import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { setModels, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import type { Tenant } from '../helpers/test-context';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';

/**
 * `x-switchyard-metadata` through the official OpenAI SDK, set once on the client as a default header
 * (docs/sdk-metadata.md): the metadata moves to a top-level `switchyard` field, or is left out, and
 * `metadata` stays absent, as the SDK types it.
 */

let h: CompletionsHarness;
let listening: ListeningApp;
let baseURL: string;
let tenant: Tenant;

beforeAll(async () => {
  h = startCompletionsHarness();
  listening = await listenOnLoopback(h.app);
  baseURL = `${listening.origin}/v1`;
  tenant = await h.tenant();
  await setModels(h.app, tenant, { 'test-echo': true });
});
afterAll(async () => {
  await listening.close();
  await h.close();
});

const clientWith = (placement?: string) =>
  new OpenAI({ apiKey: tenant.api_key, baseURL, maxRetries: 0, ...(placement ? { defaultHeaders: { 'x-switchyard-metadata': placement } } : {}) });
const params = { model: 'test-echo', messages: [{ role: 'user' as const, content: 'Where does it go?' }] };

/** Reads a field the SDK does not declare, as docs/sdk-metadata.md's helper does. */
const fieldOf = (object: object, name: string): unknown => (object as Record<string, unknown>)[name];

describe('x-switchyard-metadata', () => {
  it('keeps the metadata in `metadata` by default', async () => {
    const completion = await clientWith().chat.completions.create(params);
    expect(fieldOf(completion, 'metadata')).toMatchObject({ model: { model: 'test-echo' }, status_code: 200 });
    expect(fieldOf(completion, 'switchyard')).toBeUndefined();
  });

  it('moves it to `switchyard`, JSON and stream, with the same figures', async () => {
    const client = clientWith('switchyard');
    const completion: ChatCompletion = await client.chat.completions.create(params);
    expect(completion.choices[0]?.message.content).toBe('Where does it go?');
    expect(fieldOf(completion, 'metadata')).toBeUndefined();
    expect(fieldOf(completion, 'switchyard')).toMatchObject({ model: { model: 'test-echo' }, status_code: 200, costs: { total_tokens: expect.any(Number) } });

    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) chunks.push(chunk);
    const closing = chunks.find((chunk) => chunk.choices[0]?.finish_reason);
    expect(closing && fieldOf(closing, 'switchyard')).toMatchObject({ model: { model: 'test-echo' } });
    expect(chunks.every((chunk) => fieldOf(chunk, 'metadata') === undefined)).toBe(true);
  });

  it('leaves it out with `none`: the log still has it', async () => {
    const { data: completion, response } = await clientWith('none').chat.completions.create(params).withResponse();
    expect(fieldOf(completion, 'metadata')).toBeUndefined();
    expect(fieldOf(completion, 'switchyard')).toBeUndefined();
    const logId = response.headers.get('x-switchyard-log-id');
    const log = await fetch(`${baseURL}/logs/${logId}`, { headers: { authorization: `Bearer ${tenant.api_key}` } });
    expect(log.status).toBe(200);
  });

  it('refuses another value with 400 naming the header', async () => {
    const err = await clientWith('body')
      .chat.completions.create(params)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_value', param: 'x-switchyard-metadata' });
  });
});
