import type { ChatRequest } from '../../src/domain/chat';
import { alphanumericId } from '../../src/providers/openai-compatible/messages';
import { outgoingCall, requestBody } from '../../src/providers/openai-compatible/request';
import { OPENAI_COMPATIBLE_VENDORS } from '../../src/providers/openai-compatible/vendors';
import { PROVIDER_IDS } from '../../src/config/schema';

const vendor = (id: string) => {
  const found = OPENAI_COMPATIBLE_VENDORS.find((v) => v.id === id);
  if (!found) throw new Error(`no vendor ${id}`);
  return found;
};

const base: ChatRequest = {
  model: 'm-1',
  messages: [
    { role: 'developer', content: 'Be brief.' },
    {
      role: 'user',
      name: 'ann',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
      ],
    },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc_123', type: 'function', function: { name: 'look', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_abc_123', content: 'a cat' },
  ],
};

const full: ChatRequest = {
  ...base,
  max_tokens: 100,
  temperature: 0.3,
  top_p: 0.9,
  n: 2,
  stop: ['END'],
  presence_penalty: 0.1,
  frequency_penalty: 0.2,
  logit_bias: { '50256': -100 },
  tools: [{ type: 'function', function: { name: 'look', parameters: { type: 'object' } } }],
  tool_choice: { type: 'function', function: { name: 'look' } },
  response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
  seed: 42,
  user: 'user-1',
};

describe('OpenAI-compatible request translation', () => {
  it('has one entry per OpenAI-compatible provider id of the config', () => {
    const ids = OPENAI_COMPATIBLE_VENDORS.map((v) => v.id);
    expect(ids).toEqual(['openai', 'mistral', 'groq', 'together', 'deepseek', 'fireworks', 'xai', 'openrouter', 'ollama', 'vllm']);
    for (const id of ids) expect(PROVIDER_IDS).toContain(id);
  });

  it('sends OpenAI every field as it is, developer messages included', () => {
    const body = requestBody(vendor('openai'), full, 'whole');
    expect(body).toEqual({
      model: 'm-1',
      messages: [
        { role: 'developer', content: 'Be brief.' },
        base.messages[1],
        { role: 'assistant', content: null, tool_calls: base.messages[2]?.tool_calls },
        { role: 'tool', tool_call_id: 'call_abc_123', content: 'a cat' },
      ],
      max_tokens: 100,
      temperature: 0.3,
      top_p: 0.9,
      n: 2,
      stop: ['END'],
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      logit_bias: { '50256': -100 },
      tools: full.tools,
      tool_choice: full.tool_choice,
      response_format: full.response_format,
      seed: 42,
      user: 'user-1',
      stream: false,
    });
  });

  it('asks for stream usage where the vendor takes stream_options, and never from Mistral', () => {
    for (const id of ['openai', 'groq', 'together', 'deepseek', 'fireworks', 'xai', 'openrouter', 'ollama', 'vllm']) {
      expect(requestBody(vendor(id), base, 'stream')).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      expect(requestBody(vendor(id), base, 'whole')).not.toHaveProperty('stream_options');
    }
    expect(requestBody(vendor('mistral'), base, 'stream')).not.toHaveProperty('stream_options');
  });

  it('uses max_completion_tokens and drops sampling fields for OpenAI reasoning models', () => {
    for (const model of ['o1', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5-mini', 'gpt-5.1']) {
      const body = requestBody(vendor('openai'), { ...full, model }, 'whole');
      expect(body).toMatchObject({ max_completion_tokens: 100, n: 2, seed: 42 });
      for (const field of ['max_tokens', 'temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'logit_bias']) expect(body).not.toHaveProperty(field);
    }
    const chat = requestBody(vendor('openai'), { ...full, model: 'gpt-5-chat-latest' }, 'whole');
    expect(chat).toMatchObject({ max_completion_tokens: 100, temperature: 0.3 });
    expect(requestBody(vendor('openai'), { ...full, model: 'gpt-4o' }, 'whole')).toMatchObject({ max_tokens: 100, temperature: 0.3 });
    // The rule is OpenAI's: the same model names elsewhere keep max_tokens.
    expect(requestBody(vendor('openrouter'), { ...full, model: 'o3-mini' }, 'whole')).toMatchObject({ max_tokens: 100, temperature: 0.3 });
  });

  it('adapts Mistral: random_seed, no refused fields, no message names, system for developer, 9-character tool call ids', () => {
    const body = requestBody(vendor('mistral'), { ...full, extra: { logprobs: true, safe_prompt: true } }, 'whole');
    expect(body).toMatchObject({ random_seed: 42, max_tokens: 100, n: 2, safe_prompt: true });
    for (const field of ['seed', 'user', 'logit_bias', 'logprobs']) expect(body).not.toHaveProperty(field);
    const messages = body.messages as Record<string, unknown>[];
    expect(messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(messages[1]).not.toHaveProperty('name');
    const id = (messages[2]?.tool_calls as { id: string }[])[0]?.id;
    expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(messages[3]?.tool_call_id).toBe(id);
  });

  it('keeps tool call ids already in the Mistral form, and derives others deterministically', () => {
    expect(alphanumericId('D681PevKs')).toBe('D681PevKs');
    expect(alphanumericId('call_abc_123')).toBe(alphanumericId('call_abc_123'));
    expect(alphanumericId('call_abc_123')).not.toBe(alphanumericId('call_abc_124'));
  });

  it('drops what Groq refuses with 400: logprobs, logit_bias, top_logprobs, n and message names', () => {
    const body = requestBody(vendor('groq'), { ...full, extra: { logprobs: true, top_logprobs: 2, reasoning_format: 'hidden' } }, 'whole');
    for (const field of ['logprobs', 'top_logprobs', 'logit_bias', 'n']) expect(body).not.toHaveProperty(field);
    expect(body).toMatchObject({ seed: 42, user: 'user-1', reasoning_format: 'hidden' });
    expect((body.messages as Record<string, unknown>[])[1]).not.toHaveProperty('name');
  });

  it('passes extra fields through without letting them replace its own', () => {
    const body = requestBody(
      vendor('together'),
      {
        ...base,
        temperature: 0.5,
        extra: { model: 'x', messages: [], stream: true, stream_options: null, temperature: 1, top_k: 40, repetition_penalty: 1.1 },
      },
      'whole',
    );
    expect(body).toMatchObject({ model: 'm-1', stream: false, temperature: 0.5, top_k: 40, repetition_penalty: 1.1 });
    expect(body.messages).toHaveLength(4);
    expect(body).not.toHaveProperty('stream_options');
  });

  it('uses an extra max_completion_tokens as the limit when max_tokens is unset', () => {
    expect(requestBody(vendor('deepseek'), { ...base, extra: { max_completion_tokens: 64 } }, 'whole')).toMatchObject({ max_tokens: 64 });
    expect(requestBody(vendor('openai'), { ...base, model: 'o3', extra: { max_completion_tokens: 64 } }, 'whole')).toMatchObject({ max_completion_tokens: 64 });
    expect(requestBody(vendor('mistral'), { ...base, extra: { max_completion_tokens: 64 } }, 'whole')).toEqual(expect.objectContaining({ max_tokens: 64 }));
  });

  it('builds the URL from the base URL, bearer auth only with a key, and vendor headers', () => {
    const call = outgoingCall(vendor('openrouter'), base, { baseUrl: 'https://openrouter.ai/api/v1/', apiKey: 'sk-or', mode: 'stream' });
    expect(call.url).toBe('https://openrouter.ai/api/v1/chat/completions');
    expect(call.headers).toEqual({ authorization: 'Bearer sk-or', accept: 'text/event-stream', 'X-Title': 'Switchyard' });
    const local = outgoingCall(vendor('ollama'), base, { baseUrl: 'http://127.0.0.1:11434/v1', apiKey: '', mode: 'whole' });
    expect(local.url).toBe('http://127.0.0.1:11434/v1/chat/completions');
    expect(local.headers).toEqual({});
  });
});
