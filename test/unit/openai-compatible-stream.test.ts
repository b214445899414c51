import pino from 'pino';
import type { ChatChunk, ToolCallDelta } from '../../src/domain/chat';
import { Deadline } from '../../src/net/deadline';
import { translateSse } from '../../src/providers/http/sse';
import { UpstreamError } from '../../src/errors/upstream-error';
import { OpenAiStreamTranslator } from '../../src/providers/openai-compatible/stream';
import { OPENAI_COMPATIBLE_VENDORS } from '../../src/providers/openai-compatible/vendors';
import type { ProviderContext } from '../../src/providers/types';
import { upstreamResponse } from '../helpers/upstream-response';

const vendor = (id: string) => {
  const found = OPENAI_COMPATIBLE_VENDORS.find((v) => v.id === id);
  if (!found) throw new Error(`no vendor ${id}`);
  return found;
};

const ctx: ProviderContext = { apiKey: '', baseUrl: '', signal: new AbortController().signal, timeoutMs: 5000, logger: pino({ level: 'silent' }) };

/** Raw SSE text through the providers' stream loop (over an in-memory body) and the translator. */
async function translate(vendorId: string, sse: string): Promise<ChatChunk[]> {
  const upstream = { response: upstreamResponse(sse), deadline: new Deadline(ctx.signal, { idleMs: ctx.timeoutMs }) };
  const chunks: ChatChunk[] = [];
  for await (const batch of translateSse({ provider: vendorId, ctx, open: async () => upstream }, new OpenAiStreamTranslator(vendor(vendorId))))
    chunks.push(...batch);
  return chunks;
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err as UpstreamError,
  );

const sse = (...events: (object | string)[]) => events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join('');
const chunk = (choices: object[], extra: object = {}) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices, ...extra });
const delta = (d: object, finish: string | null = null) => ({ index: 0, delta: d, finish_reason: finish });
const text = (chunks: ChatChunk[]) => chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? '')).join('');
const finishes = (chunks: ChatChunk[]) => chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean);
const toolDeltas = (chunks: ChatChunk[]): ToolCallDelta[] => chunks.flatMap((c) => c.choices.flatMap((choice) => choice.delta.tool_calls ?? []));

describe('OpenAI-compatible stream translation', () => {
  it('translates OpenAI with include_usage: drops the role-only opening, ignores usage: null, yields usage last', async () => {
    const chunks = await translate(
      'openai',
      sse(
        chunk([delta({ role: 'assistant', content: '', refusal: null })], { usage: null }),
        chunk([delta({ content: 'Hi' })], { usage: null }),
        chunk([delta({ content: ' there' })], { usage: null }),
        chunk([delta({}, 'stop')], { usage: null }),
        chunk([], { usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } }),
        '[DONE]',
      ),
    );
    expect(chunks).toEqual([
      { choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: { content: ' there' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      { choices: [], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } },
    ]);
  });

  it("takes Mistral's usage from its finish chunk and still yields it on a chunk of its own, last", async () => {
    const chunks = await translate(
      'mistral',
      sse(
        chunk([delta({ role: 'assistant', content: '' })]),
        chunk([delta({ content: '3.' })]),
        chunk([delta({ content: '' }, 'stop')], { usage: { prompt_tokens: 7, total_tokens: 17, completion_tokens: 10 } }),
        '[DONE]',
      ),
    );
    expect(text(chunks)).toBe('3.');
    expect(chunks.at(-2)).toEqual({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    expect(chunks.at(-1)).toEqual({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 10, total_tokens: 17 } });
  });

  it("reads Groq's x_groq usage and skips its empty tool_calls arrays, keeping the role on a delta with content", async () => {
    const chunks = await translate(
      'groq',
      sse(
        chunk([delta({ role: 'assistant', content: 'Hello', tool_calls: [] })]),
        chunk([delta({}, 'stop')], { x_groq: { id: 'req_1', usage: { queue_time: 0.07, prompt_tokens: 23, completion_tokens: 19, total_tokens: 42 } } }),
        '[DONE]',
      ),
    );
    expect(chunks[0]).toEqual({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] });
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 23, completion_tokens: 19, total_tokens: 42 });
  });

  it('keeps the latest usage when xAI sends it before a final chunk without it', async () => {
    const chunks = await translate(
      'xai',
      sse(
        chunk([delta({ content: 'Yo' })]),
        chunk([delta({}, 'stop')], { usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } }),
        chunk([]),
        '[DONE]',
      ),
    );
    expect(chunks.at(-1)).toEqual({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } });
  });

  it('keeps tool call deltas intact: index, id, type and name on the first, argument fragments after', async () => {
    const chunks = await translate(
      'openai',
      sse(
        chunk([
          delta({
            role: 'assistant',
            content: null,
            tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }],
          }),
        ]),
        chunk([delta({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] })]),
        chunk([delta({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] })]),
        chunk([delta({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } }] })]),
        chunk([delta({}, 'tool_calls')]),
        '[DONE]',
      ),
    );
    expect(toolDeltas(chunks)).toEqual([
      { index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 0, function: { arguments: '{"q":' } },
      { index: 0, function: { arguments: '"Oslo"}' } },
      { index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
    expect(finishes(chunks)).toEqual(['tool_calls']);
  });

  it('numbers whole tool calls sent without index (Ollama), adds type, and reads stop after them as tool_calls', async () => {
    const chunks = await translate(
      'ollama',
      sse(
        chunk([delta({ role: 'assistant', tool_calls: [{ id: 'call_1', function: { name: 'a', arguments: '{}' } }] })]),
        chunk([delta({ tool_calls: [{ id: 'call_2', function: { name: 'b', arguments: { x: 1 } } }] })]),
        chunk([delta({}, 'stop')]),
        '[DONE]',
      ),
    );
    expect(toolDeltas(chunks)).toEqual([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'a', arguments: '{}' } },
      { index: 1, id: 'call_2', type: 'function', function: { name: 'b', arguments: '{"x":1}' } },
    ]);
    expect(finishes(chunks)).toEqual(['tool_calls']);
  });

  it('maps finish reasons, including Mistral model_length', async () => {
    const chunks = await translate('mistral', sse(chunk([delta({ content: 'a' })]), chunk([delta({}, 'model_length')]), '[DONE]'));
    expect(finishes(chunks)).toEqual(['length']);
    const filtered = await translate('openai', sse(chunk([delta({}, 'content_filter')]), '[DONE]'));
    expect(finishes(filtered)).toEqual(['content_filter']);
  });

  it('joins the text parts of array content and leaves thinking out', async () => {
    const chunks = await translate(
      'mistral',
      sse(
        chunk([delta({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hmm' }] }] })]),
        chunk([delta({ content: [{ type: 'text', text: 'Answer' }] }, 'stop')]),
        '[DONE]',
      ),
    );
    expect(text(chunks)).toBe('Answer');
  });

  it('ignores SSE comments (OpenRouter keep-alives) and anything after [DONE]', async () => {
    const raw = `: OPENROUTER PROCESSING\n\n${sse(chunk([delta({ content: 'ok' }, 'stop')]), '[DONE]', chunk([delta({ content: 'late' })]))}`;
    const chunks = await translate('openrouter', raw);
    expect(text(chunks)).toBe('ok');
  });

  it('throws stream_cut when [DONE] never comes, even after a finish_reason', async () => {
    const error = await failure(translate('openai', sse(chunk([delta({ content: 'a' })]), chunk([delta({}, 'stop')]))));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'stream_cut', provider: 'openai' });
  });

  it('accepts a clean end after every finish_reason from servers that omit [DONE] (vLLM, Ollama), but not before', async () => {
    const chunks = await translate(
      'vllm',
      sse(chunk([delta({ content: 'a' })]), chunk([delta({}, 'stop')], { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })),
    );
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 });
    const error = await failure(translate('vllm', sse(chunk([delta({ content: 'a' })]))));
    expect(error).toMatchObject({ kind: 'stream_cut', provider: 'vllm' });
  });

  it('yields zero usage last when the vendor reported none', async () => {
    const chunks = await translate('together', sse(chunk([delta({ content: 'a' }, 'stop')]), '[DONE]'));
    expect(chunks.at(-1)).toEqual({ choices: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } });
  });

  it('throws an {"error": ...} event as a UpstreamError whose kind comes from its type', async () => {
    const error = await failure(
      translate(
        'openai',
        sse(chunk([delta({ content: 'a' })]), { error: { message: 'The server had an error.', type: 'server_error', param: null, code: null } }),
      ),
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'server_error', provider: 'openai', status: undefined });
    expect(error?.message).toContain('The server had an error.');
  });

  it("throws OpenRouter's mid-generation error chunk with the kind of its numeric code", async () => {
    const raw = sse(chunk([{ index: 0, delta: { content: '' }, finish_reason: 'error' }], { error: { code: 429, message: 'Rate limited upstream' } }));
    const error = await failure(translate('openrouter', raw));
    expect(error).toMatchObject({ kind: 'rate_limited', provider: 'openrouter' });
  });

  it('throws a finish_reason of error without an error body, a string error and vLLM object errors', async () => {
    expect(await failure(translate('openrouter', sse(chunk([delta({}, 'error')]))))).toMatchObject({ kind: 'server_error' });
    expect(await failure(translate('xai', sse({ error: 'quota exceeded', code: 'rate_limit' })))).toMatchObject({ kind: 'rate_limited' });
    const vllm = await failure(translate('vllm', sse({ object: 'error', message: 'bad input', type: 'BadRequestError', code: 400 })));
    expect(vllm).toMatchObject({ kind: 'bad_request' });
    expect(vllm?.message).toContain('bad input');
  });

  it('reads an SSE `event: error` block as an error', async () => {
    const error = await failure(translate('vllm', `event: error\ndata: {"message":"engine died","type":"InternalServerError"}\n\n`));
    expect(error).toMatchObject({ kind: 'server_error' });
    expect(error?.message).toContain('engine died');
  });

  it('throws invalid_response for an event that is not JSON', async () => {
    const error = await failure(translate('openai', sse('{"choices": [')));
    expect(error).toMatchObject({ kind: 'invalid_response', provider: 'openai' });
  });
});
