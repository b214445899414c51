import type { ServerResponse } from 'node:http';
import { pieces, SIM_REASONING_TOKENS, type SimAnswer, type SimConversation, type SimUsage } from './answer';
import { SimBadRequest, type AnswerOptions, type Dialect } from './dialect';
import { sendJson, sleep, startSse } from './http';
import { EMBEDDINGS_PATH } from './openai-embeddings';

/**
 * Besides the shared faults, the model `sim-stream-error` streams one delta and then an `{"error": ...}`
 * event, as OpenAI does when it fails after answering 200.
 */
const MID_STREAM_ERROR_MODEL = 'sim-stream-error';

interface OpenAiMessage {
  role?: unknown;
  content?: unknown;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { type?: unknown; text?: unknown }) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}

function toolChoiceOf(choice: unknown): string | undefined {
  if (typeof choice === 'string') return choice;
  const named = choice as { function?: { name?: unknown } } | undefined;
  return typeof named?.function?.name === 'string' ? named.function.name : undefined;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** Models that refuse `max_tokens` ("Use 'max_completion_tokens' instead"), as OpenAI's reasoning and GPT-5 models do. */
const COMPLETION_TOKENS_ONLY = /^(o\d|gpt-5)/;

/** Models that take `reasoning_effort` (OpenAI's reasoning models, gpt-oss, Grok 3 mini); others refuse it, as OpenAI does. */
const REASONING_MODELS = /^(o\d|gpt-5(?!.*-chat)|openai\/gpt-oss|grok-3-mini)/;
const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/** Checks OpenAI makes that the adapters' quirks exist for. */
function validate(body: Record<string, unknown>, messages: OpenAiMessage[]): void {
  const role = messages.find((m) => typeof m.role !== 'string' || !ROLES.has(m.role))?.role;
  if (role !== undefined) throw new SimBadRequest(`Invalid value: '${String(role)}'. Supported values are: ${[...ROLES].join(', ')}.`);
  if (typeof body.model === 'string' && COMPLETION_TOKENS_ONLY.test(body.model) && body.max_tokens !== undefined) {
    throw new SimBadRequest("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.");
  }
  if (body.reasoning_effort === undefined) return;
  if (!REASONING_MODELS.test(String(body.model))) throw new SimBadRequest("Unsupported parameter: 'reasoning_effort' is not supported with this model.");
  if (!EFFORTS.includes(String(body.reasoning_effort)))
    throw new SimBadRequest(`Invalid value: '${String(body.reasoning_effort)}'. Supported values are: ${EFFORTS.join(', ')}.`);
}

/** A reasoning model asked to reason (any effort but `none`) thinks `SIM_REASONING_TOKENS` tokens; asked nothing, none (unlike OpenAI's, which always do). */
const reasoningTokensOf = (body: Record<string, unknown>): number | undefined =>
  body.reasoning_effort !== undefined && body.reasoning_effort !== 'none' ? SIM_REASONING_TOKENS : undefined;

function parse(raw: unknown): SimConversation & { includeUsage: boolean } {
  const body = (raw ?? {}) as Record<string, unknown>;
  if (typeof body.model !== 'string') throw new SimBadRequest("'model' is required.");
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw new SimBadRequest("'messages' must be a non-empty array.");
  const messages = body.messages as OpenAiMessage[];
  validate(body, messages);
  const last = messages.at(-1);
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const tools = Array.isArray(body.tools) ? (body.tools as { function?: { name?: string } }[]).map((t) => t.function?.name ?? 'tool') : [];
  const format = (body.response_format as { type?: string } | undefined)?.type;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
  return {
    model: body.model,
    stream: body.stream === true,
    includeUsage: streamOptions?.include_usage === true,
    lastUserText: textOf(lastUser?.content),
    toolResultText: last?.role === 'tool' ? textOf(last.content) : undefined,
    tools,
    toolChoice: toolChoiceOf(body.tool_choice),
    json: format === 'json_object' || format === 'json_schema',
    maxTokens: typeof maxTokens === 'number' ? maxTokens : undefined,
    promptChars: messages.reduce((sum, m) => sum + textOf(m.content).length, 0),
    reasoningTokens: reasoningTokensOf(body),
  };
}

/** As OpenAI reports it: reasoning tokens are part of `completion_tokens`, and told apart in its details. */
const usageBody = (usage: SimUsage) => ({
  prompt_tokens: usage.prompt,
  completion_tokens: usage.completion + usage.reasoning,
  total_tokens: usage.prompt + usage.completion + usage.reasoning,
  completion_tokens_details: { reasoning_tokens: usage.reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
});

function message(answer: SimAnswer) {
  if (answer.kind === 'text') return { message: { role: 'assistant', content: answer.text, refusal: null }, finish_reason: answer.finish };
  const call = { id: answer.id, type: 'function', function: { name: answer.name, arguments: answer.arguments } };
  return { message: { role: 'assistant', content: null, tool_calls: [call], refusal: null }, finish_reason: 'tool_calls' };
}

/** The deltas of a streamed answer, before the finish chunk. */
function deltas(answer: SimAnswer): object[] {
  if (answer.kind === 'text') return pieces(answer.text).map((content) => ({ content }));
  const half = Math.ceil(answer.arguments.length / 2);
  return [
    { tool_calls: [{ index: 0, id: answer.id, type: 'function', function: { name: answer.name, arguments: '' } }] },
    { tool_calls: [{ index: 0, function: { arguments: answer.arguments.slice(0, half) } }] },
    { tool_calls: [{ index: 0, function: { arguments: answer.arguments.slice(half) } }] },
  ];
}

async function stream(
  res: ServerResponse,
  exchange: { conversation: ReturnType<typeof parse>; answer: SimAnswer; usage: SimUsage },
  { cutAfter, chunkDelayMs }: AnswerOptions,
) {
  const base = { id: 'chatcmpl-sim', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: exchange.conversation.model };
  // With include_usage, OpenAI sends `usage: null` on every chunk but the last.
  const nullUsage = exchange.conversation.includeUsage ? { usage: null } : {};
  // Each event is awaited until handed to the socket, so a deliberate cut comes after what was sent.
  const send = (text: string) => new Promise<void>((resolve) => res.write(text, () => resolve()));
  const write = (chunk: object) => send(`data: ${JSON.stringify({ ...base, ...nullUsage, ...chunk })}\n\n`);
  startSse(res);
  await write({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  const parts = deltas(exchange.answer);
  for (const [index, delta] of parts.entries()) {
    if (cutAfter !== undefined && index >= cutAfter) {
      // Ending the socket without the chunked terminator is, to the client, a body that broke off;
      // destroying it at once could reset it before the client has read the earlier events.
      res.socket?.end();
      return;
    }
    if (chunkDelayMs) await sleep(chunkDelayMs);
    await write({ choices: [{ index: 0, delta, finish_reason: null }] });
    if (exchange.conversation.model === MID_STREAM_ERROR_MODEL) {
      res.end(`data: ${JSON.stringify({ error: { message: 'Simulated failure during generation.', type: 'server_error', param: null, code: null } })}\n\n`);
      return;
    }
  }
  const finish = exchange.answer.kind === 'text' ? exchange.answer.finish : 'tool_calls';
  await write({ choices: [{ index: 0, delta: {}, finish_reason: finish }] });
  if (exchange.conversation.includeUsage) await write({ choices: [], usage: usageBody(exchange.usage) });
  res.end('data: [DONE]\n\n');
}

/**
 * OpenAI chat completions (`/openai/v1/chat/completions`) and embeddings (`/openai/v1/embeddings`, answered by
 * openai-embeddings.ts); the OpenAI-compatible vendors speak the same.
 */
export const openAiDialect: Dialect = {
  prefix: '/openai',
  match: (method, path) => {
    if (method !== 'POST') return null;
    if (path === '/v1/chat/completions') return {};
    return path === EMBEDDINGS_PATH ? { embeddings: true } : null;
  },
  apiKey: (req) => /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1],
  parse: (body) => parse(body),
  sendAnswer: async (res, exchange, options) => {
    const conversation = exchange.conversation as ReturnType<typeof parse>;
    if (conversation.stream) return stream(res, { ...exchange, conversation }, options);
    if (options.cutAfter !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4096 });
      res.write('{"id":"chatcmpl-sim","object":');
      res.socket?.destroy();
      return;
    }
    sendJson(res, {
      status: 200,
      body: {
        id: 'chatcmpl-sim',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: conversation.model,
        choices: [{ index: 0, ...message(exchange.answer), logprobs: null }],
        usage: usageBody(exchange.usage),
        system_fingerprint: 'fp_sim',
      },
    });
  },
  sendError: (res, error) => {
    const type = error.status === 429 ? 'rate_limit_exceeded' : error.status >= 500 ? 'server_error' : 'invalid_request_error';
    const headers: Record<string, string> = error.retryAfterSeconds !== undefined ? { 'retry-after': String(error.retryAfterSeconds) } : {};
    sendJson(res, {
      status: error.status,
      body: { error: { message: error.message, type, param: null, code: error.status === 401 ? 'invalid_api_key' : null } },
      headers,
    });
  },
};
