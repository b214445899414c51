import type { IncomingMessage, ServerResponse } from 'node:http';
import { pieces, SIM_REASONING_TOKENS, thinkingText, usageFor, type SimAnswer, type SimConversation, type SimUsage } from './answer';
import { SimBadRequest, type AnswerOptions, type Dialect } from './dialect';
import { sendJson, sleep, startSse } from './http';

/**
 * Anthropic's Messages API (`/anthropic/v1/messages`), as strict as the real one where adapters can go
 * wrong: `max_tokens` required, unknown top-level fields refused, alternating roles starting with
 * `user` (the real API now merges consecutive turns; refusing them here catches adapters that forget to),
 * non-empty content, `tool_result` ids matching the previous turn's `tool_use` ids and vice versa,
 * temperature in 0..1, tool definitions with `input_schema`. JSON mode does not exist on the wire: as a
 * model would, the dialect answers in JSON when the system prompt asks for JSON.
 *
 * Extended thinking (`thinking: {type: "enabled", budget_tokens}`) as the real API checks it: Claude 3.7
 * and 4.x models only, a budget of at least 1,024 under `max_tokens`, no `temperature` but 1, `top_p`
 * 0.95 to 1, no forced tool choice, and a tool result answered only after an assistant turn that starts
 * with its thinking block. A thinking answer starts with a `thinking` block (its text `thinkingText`,
 * signed), streamed as `thinking_delta` and `signature_delta`; `output_tokens` counts the
 * `SIM_REASONING_TOKENS` it thought, and `output_tokens_details.thinking_tokens` says how many.
 *
 * Besides the shared faults, the model `sim-stream-error` streams one text delta and then an
 * `overloaded_error` event, as Anthropic does when it fails after answering 200.
 */

type Json = Record<string, unknown>;
type AnthropicConversation = SimConversation & { stopSequences: string[]; thinking: boolean };

const KNOWN_FIELDS = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'metadata',
  'thinking',
  'service_tier',
  'output_config',
  'container',
  'cache_control',
  'inference_geo',
]);
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
/** Models with extended thinking: Claude 3.7 Sonnet and the Claude 4 family. */
const THINKING_MODELS = /^claude-(3-7-sonnet|sonnet-4|opus-4|haiku-4)/;
const SIGNATURE = 'sim-thinking-signature';
const MID_STREAM_ERROR_MODEL = 'sim-stream-error';

/** `anthropic-version` of the request being handled: the server calls `apiKey(req)` and then `parse` synchronously. */
let versionHeader: string | undefined;

const bad = (message: string): never => {
  throw new SimBadRequest(message);
};
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function blocksOf(content: unknown, path: string): Json[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return bad(`${path}.content: Input should be a valid list`);
  return content.map((block, j) => (isObject(block) ? block : bad(`${path}.content.${j}: Input should be a valid dictionary`)));
}

function checkBlock(block: Json, path: string): void {
  if (block.type === 'text' && (typeof block.text !== 'string' || block.text === '')) bad('messages: text content blocks must be non-empty');
  if (block.type === 'tool_use' && !isObject(block.input)) bad(`${path}.input: Input should be a valid dictionary`);
  if (block.type === 'tool_use' && (typeof block.id !== 'string' || typeof block.name !== 'string')) bad(`${path}.id: Field required`);
  if (block.type === 'tool_result' && typeof block.tool_use_id !== 'string') bad(`${path}.tool_use_id: Field required`);
  if (block.type !== 'image') return;
  const source = isObject(block.source) ? block.source : bad(`${path}.source: Field required`);
  if (source.type === 'url' && typeof source.url === 'string') return;
  if (source.type !== 'base64' || typeof source.data !== 'string')
    bad(`${path}.source: Input tag '${String(source.type)}' does not match any of the expected tags: 'base64', 'url', 'file'`);
  if (!IMAGE_TYPES.has(String(source.media_type))) bad(`${path}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
}

const idsOf = (blocks: Json[], type: string, field: string) => blocks.filter((b) => b.type === type).map((b) => String(b[field]));

/** Each assistant turn's tool_use ids must be answered, exactly, by tool_result blocks in the next turn. */
function checkToolPairs(turns: { role: string; blocks: Json[] }[]): void {
  turns.forEach((turn, i) => {
    const results = idsOf(turn.blocks, 'tool_result', 'tool_use_id');
    const previous = turns[i - 1];
    const offered = previous ? idsOf(previous.blocks, 'tool_use', 'id') : [];
    const stray = results.filter((id) => !offered.includes(id));
    if (stray.length > 0)
      bad(
        `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
      );
    const next = turns[i + 1];
    const unanswered = next ? idsOf(turn.blocks, 'tool_use', 'id').filter((id) => !idsOf(next.blocks, 'tool_result', 'tool_use_id').includes(id)) : [];
    if (unanswered.length > 0)
      bad(
        `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
  });
}

function parseMessages(raw: unknown): { role: string; blocks: Json[] }[] {
  if (!Array.isArray(raw)) return bad('messages: Field required');
  if (raw.length === 0) return bad('messages: at least one message is required');
  const turns = raw.map((message: unknown, i) => {
    const path = `messages.${i}`;
    if (!isObject(message)) return bad(`${path}: Input should be a valid dictionary`);
    if (message.role !== 'user' && message.role !== 'assistant') return bad(`${path}.role: Input should be 'user' or 'assistant'`);
    const blocks = blocksOf(message.content, path);
    blocks.forEach((block, j) => checkBlock(block, `${path}.content.${j}`));
    const finalAssistant = i === raw.length - 1 && message.role === 'assistant';
    if (blocks.length === 0 && !finalAssistant) bad(`${path}: all messages must have non-empty content except for the optional final assistant message`);
    return { role: message.role, blocks };
  });
  if (turns[0]?.role !== 'user') bad('messages: first message must use the "user" role');
  turns.forEach((turn, i) => {
    if (i > 0 && turns[i - 1]?.role === turn.role)
      bad(`messages: roles must alternate between "user" and "assistant", but found multiple "${turn.role}" roles in a row`);
  });
  checkToolPairs(turns);
  return turns;
}

function systemText(system: unknown): string {
  if (system === undefined || typeof system === 'string') return system ?? '';
  if (!Array.isArray(system)) return bad('system: Input should be a valid string');
  return system
    .map((block: unknown) =>
      isObject(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : bad('system.0: Input should be a text block'),
    )
    .join('\n');
}

function parseTools(body: Json): { tools: string[]; toolChoice?: string } {
  const tools = body.tools === undefined ? [] : Array.isArray(body.tools) ? body.tools : bad('tools: Input should be a valid list');
  const names = tools.map((tool: unknown, i) => {
    if (!isObject(tool) || typeof tool.name !== 'string') return bad(`tools.${i}.name: Field required`);
    if (!isObject(tool.input_schema)) return bad(`tools.${i}.input_schema: Field required`);
    if (tool.input_schema.type !== 'object') bad(`tools.${i}.input_schema.type: Input should be 'object'`);
    return tool.name;
  });
  if (body.tool_choice === undefined) return { tools: names };
  const choice = isObject(body.tool_choice) ? body.tool_choice : bad('tool_choice: Input should be a valid dictionary');
  if (names.length === 0 && choice.type !== 'none') bad('tool_choice: tool_choice may only be specified while providing tools.');
  if (choice.type === 'auto' || choice.type === 'none') return { tools: names, toolChoice: choice.type };
  if (choice.type === 'any') return { tools: names, toolChoice: 'required' };
  if (choice.type !== 'tool')
    return bad(`tool_choice: Input tag '${String(choice.type)}' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'`);
  if (typeof choice.name !== 'string' || !names.includes(choice.name)) bad(`tool_choice.name: Tool '${String(choice.name)}' not found in provided tools`);
  return { tools: names, toolChoice: String(choice.name) };
}

function checkSampling(body: Json): string[] {
  const inUnitRange = (field: string) => {
    const value = body[field];
    if (value !== undefined && (typeof value !== 'number' || value < 0 || value > 1)) bad(`${field}: Input should be less than or equal to 1`);
  };
  inUnitRange('temperature');
  inUnitRange('top_p');
  if (body.stop_sequences === undefined) return [];
  if (!Array.isArray(body.stop_sequences)) return bad('stop_sequences: Input should be a valid list');
  return body.stop_sequences.map((stop: unknown) =>
    typeof stop === 'string' && stop.trim() !== '' ? stop : bad('stop_sequences: each stop sequence must contain non-whitespace'),
  );
}

const textIn = (blocks: Json[], type: 'text' | 'tool_result') =>
  blocks
    .filter((b) => b.type === type)
    .map((b) =>
      type === 'text'
        ? String(b.text)
        : typeof b.content === 'string'
          ? b.content
          : blocksOf(b.content, 'tool_result')
              .map((c) => String(c.text ?? ''))
              .join(''),
    )
    .join('');

/** Whether the request turns thinking on, refused as the real API refuses what does not go with it. */
function checkThinking(body: Json, turns: { role: string; blocks: Json[] }[]): boolean {
  if (body.thinking === undefined) return false;
  const thinking = isObject(body.thinking) ? body.thinking : bad('thinking: Input should be a valid dictionary');
  if (thinking.type === 'disabled') return false;
  if (thinking.type !== 'enabled') return bad(`thinking: Input tag '${String(thinking.type)}' does not match any of the expected tags: 'enabled', 'disabled'`);
  const budget = thinking.budget_tokens;
  if (typeof budget !== 'number' || !Number.isInteger(budget)) return bad('thinking.enabled.budget_tokens: Field required');
  if (budget < 1024) bad('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
  if (!THINKING_MODELS.test(String(body.model))) bad(`'${String(body.model)}' does not support thinking.`);
  if (Number(body.max_tokens) <= budget) bad('`max_tokens` must be greater than `thinking.budget_tokens`.');
  if (body.temperature !== undefined && body.temperature !== 1) bad('`temperature` may only be set to 1 when thinking is enabled.');
  if (typeof body.top_p === 'number' && body.top_p < 0.95) bad('`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.');
  const choice = isObject(body.tool_choice) ? body.tool_choice.type : undefined;
  if (choice === 'any' || choice === 'tool') bad('Thinking may not be enabled when tool_choice forces tool use.');
  const last = turns.at(-1);
  const answered = turns.at(-2);
  if (
    last?.blocks.some((b) => b.type === 'tool_result') &&
    answered &&
    answered.blocks[0]?.type !== 'thinking' &&
    answered.blocks[0]?.type !== 'redacted_thinking'
  )
    bad(
      `messages.${turns.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(answered.blocks[0]?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`,
    );
  return true;
}

function parse(raw: unknown): AnthropicConversation {
  if (versionHeader === undefined) bad('anthropic-version: header is required');
  const body = isObject(raw) ? raw : bad('Request body must be a JSON object');
  const extra = Object.keys(body).find((key) => !KNOWN_FIELDS.has(key));
  if (extra) bad(`${extra}: Extra inputs are not permitted`);
  if (typeof body.model !== 'string') bad('model: Field required');
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens)) bad('max_tokens: Field required');
  if (Number(body.max_tokens) < 1) bad('max_tokens: Input should be greater than or equal to 1');
  const turns = parseMessages(body.messages);
  const system = systemText(body.system);
  const stopSequences = checkSampling(body);
  const thinking = checkThinking(body, turns);
  const last = turns.at(-1);
  const lastUser = [...turns].reverse().find((turn) => turn.role === 'user' && turn.blocks.some((b) => b.type === 'text'));
  const hasToolResult = last?.role === 'user' && last.blocks.some((b) => b.type === 'tool_result');
  return {
    model: String(body.model),
    stream: body.stream === true,
    lastUserText: lastUser ? textIn(lastUser.blocks, 'text') : '',
    toolResultText: hasToolResult ? textIn(last.blocks, 'tool_result') : undefined,
    ...parseTools(body),
    json: /\bJSON\b/.test(system),
    maxTokens: Number(body.max_tokens),
    promptChars: system.length + turns.reduce((sum, turn) => sum + textIn(turn.blocks, 'text').length + textIn(turn.blocks, 'tool_result').length, 0),
    stopSequences,
    thinking,
    ...(thinking ? { reasoningTokens: SIM_REASONING_TOKENS } : {}),
  };
}

interface Outcome {
  answer: SimAnswer;
  usage: SimUsage;
  stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
  stopSequence: string | null;
}

/** Cuts a text answer at its first stop sequence, as the model would stop there. */
function outcomeOf(conversation: AnthropicConversation, answer: SimAnswer, usage: SimUsage): Outcome {
  if (answer.kind === 'tool_call') return { answer, usage, stopReason: 'tool_use', stopSequence: null };
  const hits = conversation.stopSequences.map((stop) => ({ stop, at: answer.text.indexOf(stop) })).filter((hit) => hit.at !== -1);
  const first = hits.sort((a, b) => a.at - b.at)[0];
  if (!first) return { answer, usage, stopReason: answer.finish === 'length' ? 'max_tokens' : 'end_turn', stopSequence: null };
  const cut: SimAnswer = { kind: 'text', text: answer.text.slice(0, first.at), finish: 'stop' };
  return { answer: cut, usage: usageFor(conversation, cut), stopReason: 'stop_sequence', stopSequence: first.stop };
}

const toolUseId = (answer: Extract<SimAnswer, { kind: 'tool_call' }>) => answer.id.replace(/^call_/, 'toolu_');

function contentOf(answer: SimAnswer): Json[] {
  if (answer.kind === 'text') return answer.text === '' ? [] : [{ type: 'text', text: answer.text }];
  return [{ type: 'tool_use', id: toolUseId(answer), name: answer.name, input: JSON.parse(answer.arguments) as Json }];
}

const thinkingBlock = (conversation: AnthropicConversation): Json => ({ type: 'thinking', thinking: thinkingText(conversation), signature: SIGNATURE });

/** Output tokens count the thinking ones; the details say how many (present only when the model thought). */
function outputUsage(usage: SimUsage): Json {
  const counts = { output_tokens: usage.completion + usage.reasoning };
  return usage.reasoning > 0 ? { ...counts, output_tokens_details: { thinking_tokens: usage.reasoning } } : counts;
}

function messageBody(conversation: AnthropicConversation, outcome: Outcome, streaming: boolean): Json {
  const content = [...(conversation.thinking ? [thinkingBlock(conversation)] : []), ...contentOf(outcome.answer)];
  return {
    id: 'msg_sim_01',
    type: 'message',
    role: 'assistant',
    model: conversation.model,
    content: streaming ? [] : content,
    stop_reason: streaming ? null : outcome.stopReason,
    stop_sequence: streaming ? null : outcome.stopSequence,
    usage: {
      input_tokens: outcome.usage.prompt,
      ...(streaming ? { output_tokens: 1 } : outputUsage(outcome.usage)),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

/** The content block's start and its deltas: one text delta per word, or the tool input JSON in three parts. */
function blockEvents(answer: SimAnswer): { start: Json; deltas: Json[] } {
  if (answer.kind === 'text') {
    return { start: { type: 'text', text: '' }, deltas: pieces(answer.text).map((text) => ({ type: 'text_delta', text })) };
  }
  const third = Math.ceil(answer.arguments.length / 3);
  const parts = [answer.arguments.slice(0, third), answer.arguments.slice(third, 2 * third), answer.arguments.slice(2 * third)];
  return {
    start: { type: 'tool_use', id: toolUseId(answer), name: answer.name, input: {} },
    deltas: parts.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
  };
}

/** Each event is awaited until handed to the socket, so a deliberate cut comes after what was sent. */
async function stream(
  res: ServerResponse,
  exchange: { conversation: AnthropicConversation; outcome: Outcome },
  { cutAfter, chunkDelayMs }: AnswerOptions,
): Promise<void> {
  const { conversation, outcome } = exchange;
  const send = (type: string, data: Json) =>
    new Promise<void>((resolve) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`, () => resolve()));
  startSse(res);
  await send('message_start', { message: messageBody(conversation, outcome, true) });
  // The thinking block comes first, and the answer's block after it.
  const blockIndex = conversation.thinking ? 1 : 0;
  if (conversation.thinking) {
    await send('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } });
    for (const thinking of pieces(thinkingText(conversation))) await send('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking } });
    await send('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } });
    await send('content_block_stop', { index: 0 });
  }
  const block = blockEvents(outcome.answer);
  await send('content_block_start', { index: blockIndex, content_block: block.start });
  await send('ping', {});
  for (const [index, delta] of block.deltas.entries()) {
    if (cutAfter !== undefined && index >= cutAfter) {
      res.socket?.destroy();
      return;
    }
    if (conversation.model === MID_STREAM_ERROR_MODEL && index === 1) {
      await send('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
      res.end();
      return;
    }
    if (chunkDelayMs) await sleep(chunkDelayMs);
    await send('content_block_delta', { index: blockIndex, delta });
  }
  await send('content_block_stop', { index: blockIndex });
  await send('message_delta', {
    delta: { stop_reason: outcome.stopReason, stop_sequence: outcome.stopSequence },
    usage: outputUsage(outcome.usage),
  });
  await send('message_stop', {});
  res.end();
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export const anthropicDialect: Dialect = {
  prefix: '/anthropic',
  match: (method, path) => (method === 'POST' && path === '/v1/messages' ? {} : null),
  apiKey: (req: IncomingMessage) => {
    const version = req.headers['anthropic-version'];
    versionHeader = typeof version === 'string' && version !== '' ? version : undefined;
    const key = req.headers['x-api-key'];
    return typeof key === 'string' && key !== '' ? key : undefined;
  },
  parse: (body) => parse(body),
  sendAnswer: async (res, exchange, options) => {
    const conversation = exchange.conversation as AnthropicConversation;
    const outcome = outcomeOf(conversation, exchange.answer, exchange.usage);
    if (conversation.stream) return stream(res, { conversation, outcome }, options);
    if (options.cutAfter !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4096 });
      res.write('{"id":"msg_sim_01","type":"message","content":[');
      res.socket?.destroy();
      return;
    }
    sendJson(res, { status: 200, body: messageBody(conversation, outcome, false) });
  },
  sendError: (res, error) => {
    const type = ERROR_TYPES[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error');
    const headers: Record<string, string> = { 'request-id': 'req_sim_01' };
    if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
    sendJson(res, { status: error.status, body: { type: 'error', error: { type, message: error.message }, request_id: 'req_sim_01' }, headers });
  },
};
