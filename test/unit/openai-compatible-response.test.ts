import { UpstreamError } from '../../src/errors/upstream-error';
import { errorBodyMessage } from '../../src/providers/openai-compatible/errors';
import { chatResultOf } from '../../src/providers/openai-compatible/response';

const parse = (provider: string, json: string) => chatResultOf(provider, JSON.parse(json) as unknown);

const thrown = (fn: () => unknown): UpstreamError | undefined => {
  try {
    fn();
  } catch (err) {
    return err as UpstreamError;
  }
  return undefined;
};

describe('OpenAI-compatible response translation', () => {
  it('reads an OpenAI chat.completion: upstream id, model, message, finish and usage', () => {
    const result = parse(
      'openai',
      `{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion","created":1741569952,"model":"gpt-4.1-2025-04-14",
        "choices":[{"index":0,"message":{"role":"assistant","content":"Hello! How can I assist you today?","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],
        "usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},
        "completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},
        "service_tier":"default","system_fingerprint":"fp_123"}`,
    );
    expect(result).toEqual({
      upstreamId: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
      model: 'gpt-4.1-2025-04-14',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How can I assist you today?' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 19, completion_tokens: 10, total_tokens: 29 },
    });
  });

  it('reads tool calls, with arguments as JSON text even when a server sends an object', () => {
    const result = parse(
      'ollama',
      `{"id":"chatcmpl-1","model":"llama3.2","choices":[{"index":0,"message":{"role":"assistant","content":"",
        "tool_calls":[{"id":"call_x","function":{"name":"get_weather","arguments":{"city":"Oslo"}}}]},"finish_reason":"stop"}],
        "usage":{"prompt_tokens":5,"completion_tokens":4,"total_tokens":9}}`,
    );
    expect(result.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_x', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('reads Mistral: array content without the thinking, model_length as length, several choices', () => {
    const result = parse(
      'mistral',
      `{"id":"cmpl-e5cc70bb","object":"chat.completion","model":"magistral-medium-2509","created":1702256327,
        "choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Let me see"}]},{"type":"text","text":"Paris."}]},"finish_reason":"stop"},
                   {"index":1,"message":{"role":"assistant","content":"Par"},"finish_reason":"model_length"}],
        "usage":{"prompt_tokens":16,"completion_tokens":34,"total_tokens":50}}`,
    );
    expect(result.choices.map((c) => [c.message.content, c.finish_reason])).toEqual([
      ['Paris.', 'stop'],
      ['Par', 'length'],
    ]);
  });

  it('fills usage with zeros when the vendor sent none, and a total when it left that out', () => {
    expect(parse('vllm', '{"id":"a","model":"m","choices":[]}').usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expect(parse('deepseek', '{"id":"a","model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}').usage).toEqual({
      prompt_tokens: 3,
      completion_tokens: 2,
      total_tokens: 5,
    });
  });

  it('throws the error a 2xx body carries (OpenRouter mid-generation, vLLM error objects)', () => {
    const openrouter = thrown(() => parse('openrouter', '{"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"X"}}}'));
    expect(openrouter).toBeInstanceOf(UpstreamError);
    expect(openrouter).toMatchObject({ kind: 'server_error', provider: 'openrouter' });
    expect(openrouter?.message).toContain('Provider returned error');
    const vllm = thrown(() => parse('vllm', '{"object":"error","message":"max_tokens is too large","type":"BadRequestError","param":null,"code":400}'));
    expect(vllm).toMatchObject({ kind: 'bad_request', provider: 'vllm' });
  });

  it('throws invalid_response for a body that is not a completion', () => {
    expect(thrown(() => parse('openai', '[1,2]'))).toMatchObject({ kind: 'invalid_response' });
    expect(thrown(() => parse('openai', '{"id":"x"}'))).toMatchObject({ kind: 'invalid_response' });
  });
});

describe('OpenAI-compatible error bodies', () => {
  it.each([
    [
      'OpenAI',
      '{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}',
      'Incorrect API key provided.',
    ],
    ['Groq', '{"error":{"message":"property \'stream_options\' is unsupported","type":"invalid_request_error"}}', "property 'stream_options' is unsupported"],
    [
      'xAI (string error)',
      '{"code":"Client specified an invalid argument","error":"Incorrect API key provided: xa***. "}',
      'Incorrect API key provided: xa***. ',
    ],
    ['OpenRouter', '{"error":{"code":402,"message":"Insufficient credits"}}', 'Insufficient credits'],
    [
      'Mistral (top-level message)',
      '{"object":"error","message":"Tool call id was abc but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_request_error","param":null,"code":null}',
      'Tool call id was abc but must be a-z, A-Z, 0-9, with a length of 9.',
    ],
    [
      'Mistral (object message)',
      '{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","n"],"msg":"Extra inputs are not permitted"}]},"type":"invalid_request_error"}',
      '{"detail":[{"type":"extra_forbidden","loc":["body","n"],"msg":"Extra inputs are not permitted"}]}',
    ],
    ['FastAPI detail', '{"detail":"Not Found"}', 'Not Found'],
  ])('reads %s', (_vendor, body, message) => {
    expect(errorBodyMessage(body)).toBe(message);
  });

  it('gives nothing for a body that is not JSON, so the status text is used', () => {
    expect(errorBodyMessage('<html>502 Bad Gateway</html>')).toBeUndefined();
  });
});
