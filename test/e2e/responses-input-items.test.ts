import OpenAI from 'openai';
import type { ResponseItem } from 'openai/resources/responses/responses';
import type { Tenant } from '../helpers/test-context';
import { setModels, simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { listenOnLoopback, type ListeningApp } from '../helpers/listening-app';
import { startSimulator, type Simulator } from '../simulator/server';

/** `GET /v1/responses/{id}/input_items` through the official SDK's `responses.inputItems.list`. */

let sim: Simulator;
let h: CompletionsHarness;
let server: ListeningApp;
let tenant: Tenant;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim) });
  server = await listenOnLoopback(h.app);
  tenant = await h.tenant();
  await setModels(h.app, tenant, { 'gpt-4.1-mini': true });
  client = new OpenAI({ apiKey: tenant.api_key, baseURL: `${server.origin}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  await h.close();
  await sim.close();
});

const textsOf = (items: ResponseItem[]) =>
  items.map((item) =>
    item.type === 'message'
      ? item.content.map((part) => ('text' in part ? part.text : '')).join('')
      : item.type === 'function_call_output'
        ? `output:${String(item.output)}`
        : item.type,
  );

describe('responses.inputItems.list', () => {
  it('lists a string input as one user message', async () => {
    const response = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Hello there' });
    const page = await client.responses.inputItems.list(response.id);
    expect(page.data).toEqual([
      {
        type: 'message',
        id: expect.stringMatching(/^msg_[0-9a-f]{32}_in0$/),
        status: 'completed',
        role: 'user',
        content: [{ type: 'input_text', text: 'Hello there' }],
      },
    ]);
    expect(page.has_more).toBe(false);
  });

  it('lists the input items newest first, pages through them with after / before / limit / order', async () => {
    const input: OpenAI.Responses.ResponseInput = [
      { role: 'developer', content: 'one' },
      { role: 'user', content: [{ type: 'input_text', text: 'two' }] },
      { type: 'message', role: 'assistant', content: 'three' },
      { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'four' },
      { role: 'user', content: 'five' },
    ];
    const response = await client.responses.create({ model: 'gpt-4.1-mini', input });

    const desc = await client.responses.inputItems.list(response.id);
    expect(textsOf(desc.data)).toEqual(['five', 'output:four', 'function_call', 'three', 'two', 'one']);
    const raw = (await client.get(`/responses/${response.id}/input_items`)) as { object: string; first_id: string; last_id: string; has_more: boolean };
    expect(raw).toMatchObject({ object: 'list', first_id: desc.data[0]?.id, last_id: desc.data.at(-1)?.id, has_more: false });
    expect(desc.data[2]).toMatchObject({ type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{}', status: 'completed' });
    expect(desc.data[3]).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'three' }] });

    const asc = await client.responses.inputItems.list(response.id, { order: 'asc', limit: 2 });
    expect(textsOf(asc.data)).toEqual(['one', 'two']);
    expect(asc.has_more).toBe(true);
    // The SDK's auto-pagination follows `after` = the last id while `has_more`.
    const all: ResponseItem[] = [];
    for await (const item of client.responses.inputItems.list(response.id, { order: 'asc', limit: 2 })) all.push(item);
    expect(textsOf(all)).toEqual(['one', 'two', 'three', 'function_call', 'output:four', 'five']);

    const after = await client.responses.inputItems.list(response.id, { order: 'asc', after: asc.data[1]?.id, limit: 3 });
    expect(textsOf(after.data)).toEqual(['three', 'function_call', 'output:four']);
    expect(after.has_more).toBe(true);
    // `before` (in OpenAI's reference, not in this SDK's parameter type): the items just before it.
    const before = (await client.get(`/responses/${response.id}/input_items`, { query: { before: desc.data[4]?.id, limit: 2 } })) as {
      data: ResponseItem[];
      has_more: boolean;
    };
    expect(textsOf(before.data)).toEqual(['function_call', 'three']);
    expect(before.has_more).toBe(true);
  });

  it('refuses an unknown cursor (400 naming it), and answers 404 for an unknown or unstored response', async () => {
    const response = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Hi' });
    await expect(client.responses.inputItems.list(response.id, { after: 'msg_nope' })).rejects.toMatchObject({ status: 400, param: 'after' });
    await expect(client.responses.inputItems.list('resp_00000000000000000000000000000000')).rejects.toMatchObject({ status: 404 });
    const unstored = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Hi', store: false });
    await expect(client.responses.inputItems.list(unstored.id)).rejects.toMatchObject({ status: 404 });
    await client.responses.delete(response.id);
    await expect(client.responses.inputItems.list(response.id)).rejects.toMatchObject({ status: 404 });
  });

  it('keeps the response object as GET answers it', async () => {
    const response = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Same as before' });
    const read = await client.responses.retrieve(response.id);
    expect(read.id).toBe(response.id);
    expect(read.output_text).toBe(response.output_text);
    expect(read).not.toHaveProperty('input_items');
  });

  it('reads a response stored before input items were kept: GET as before, no input items', async () => {
    const response = await client.responses.create({ model: 'gpt-4.1-mini', input: 'Stored long ago' });
    const row = await h.services.db.responseRecord.findUniqueOrThrow({ where: { id: response.id } });
    await h.services.db.responseRecord.update({ where: { id: response.id }, data: { body: (row.body as { response: object }).response } });
    expect((await client.responses.retrieve(response.id)).output_text).toBe(response.output_text);
    expect((await client.responses.inputItems.list(response.id)).data).toEqual([]);
  });
});
