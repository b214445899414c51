import type { IncomingMessage, ServerResponse } from 'node:http';
import { pieces, SIM_REASONING_TOKENS, type SimAnswer, type SimConversation, type SimUsage } from './answer';
import { SimBadRequest, type AnswerOptions, type Dialect, type RouteMatch } from './dialect';
import { sendJson, sleep, startSse } from './http';

/**
 * Gemini's own API (`/gemini/v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`), as it behaves: key in `x-goog-api-key` (or `?key=`), the model
 * in the path, `google.rpc.Status` error bodies, a bad key answered 400 `API_KEY_INVALID` and a
 * missing one 403, 429s carrying `RetryInfo` instead of `Retry-After`, unknown request fields refused.
 *
 * `generationConfig.thinkingConfig` as Gemini checks it: Gemini 2.5 and 3 models only, `thinkingBudget`
 * an integer, -1 (dynamic) or 0 to 24,576 (32,768 on Pro, which cannot switch thinking off with 0). A
 * model asked to think (any budget but 0) reports `SIM_REASONING_TOKENS` as `thoughtsTokenCount`, apart
 * from `candidatesTokenCount` and within `totalTokenCount`; asked nothing, it thinks none (unlike
 * Gemini 2.5, which thinks by default).
 */

type Json = Record<string, unknown>;

interface GeminiPartIn {
  text?: unknown;
  functionCall?: { name?: unknown };
  functionResponse?: { name?: unknown; response?: unknown };
}

interface GeminiContentIn {
  role?: unknown;
  parts?: GeminiPartIn[];
}

const TOP_LEVEL = ['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'safetySettings', 'cachedContent'];
const GENERATION = [
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'stopSequences',
  'candidateCount',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
  'responseMimeType',
  'responseSchema',
  'thinkingConfig',
];
const THINKING = ['thinkingBudget', 'includeThoughts', 'thinkingLevel'];
const THINKING_MODELS = /^gemini-(2\.5|3)/;
const SCHEMA = [
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
];

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Gemini's wording for a field it does not know. */
function refuseUnknown(value: unknown, known: string[], at: string): void {
  if (!isObject(value)) return;
  const unknown = Object.keys(value).find((key) => !known.includes(key));
  if (unknown) throw new SimBadRequest(`Invalid JSON payload received. Unknown name "${unknown}" at '${at}': Cannot find field.`);
}

function checkSchema(schema: unknown, at: string): void {
  refuseUnknown(schema, SCHEMA, at);
  if (!isObject(schema)) return;
  if (isObject(schema.properties)) for (const [name, child] of Object.entries(schema.properties)) checkSchema(child, `${at}.properties[${name}].value`);
  if (schema.items !== undefined) checkSchema(schema.items, `${at}.items`);
  if (Array.isArray(schema.anyOf)) schema.anyOf.forEach((child, i) => checkSchema(child, `${at}.any_of[${i}]`));
}

function toolNames(body: Json): string[] {
  const tools = Array.isArray(body.tools) ? (body.tools as { functionDeclarations?: Json[] }[]) : [];
  return tools.flatMap((tool, t) =>
    (tool.functionDeclarations ?? []).map((declaration, d) => {
      if (declaration.parameters !== undefined) checkSchema(declaration.parameters, `tools[${t}].function_declarations[${d}].parameters`);
      return typeof declaration.name === 'string' ? declaration.name : 'tool';
    }),
  );
}

function checkContents(contents: unknown): GeminiContentIn[] {
  if (!Array.isArray(contents) || contents.length === 0) throw new SimBadRequest('* GenerateContentRequest.contents: contents is not specified');
  contents.forEach((content: GeminiContentIn, i) => {
    if (content.role !== undefined && content.role !== 'user' && content.role !== 'model') throw new SimBadRequest(`Please use a valid role: user, model.`);
    if (!Array.isArray(content.parts) || content.parts.length === 0)
      throw new SimBadRequest(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`);
    for (const part of content.parts) {
      if (part.text === '') throw new SimBadRequest('Unable to submit request because it has an empty text parameter.');
      if (part.functionResponse && typeof part.functionResponse.name !== 'string')
        throw new SimBadRequest(`* GenerateContentRequest.contents[${i}].parts: function_response.name must not be empty.`);
    }
  });
  return contents as GeminiContentIn[];
}

const textOf = (parts: GeminiPartIn[] = []) => parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');

/** A function result as text: a lone `output` string as it is, any other response as JSON. */
function resultText(parts: GeminiPartIn[] = []): string | undefined {
  const response = parts.find((part) => part.functionResponse)?.functionResponse?.response;
  if (response === undefined) return undefined;
  const output = isObject(response) ? response.output : undefined;
  return typeof output === 'string' && Object.keys(response as Json).length === 1 ? output : JSON.stringify(response);
}

function toolChoiceOf(body: Json): string | undefined {
  const config = (body.toolConfig as { functionCallingConfig?: { mode?: unknown; allowedFunctionNames?: unknown } } | undefined)?.functionCallingConfig;
  if (config?.mode === 'NONE') return 'none';
  if (config?.mode === 'AUTO' || config?.mode === undefined) return config ? 'auto' : undefined;
  const names = Array.isArray(config.allowedFunctionNames) ? (config.allowedFunctionNames as string[]) : [];
  return names.length === 1 ? names[0] : 'required';
}

/** The thinking tokens the request asks for: undefined for none, as Gemini refuses what it cannot take. */
function thinkingTokens(generation: Json, model: string): number | undefined {
  const config = generation.thinkingConfig;
  if (config === undefined) return undefined;
  refuseUnknown(config, THINKING, 'generation_config.thinking_config');
  if (!THINKING_MODELS.test(model)) throw new SimBadRequest('Thinking is not supported for this model.');
  const budget = isObject(config) ? config.thinkingBudget : undefined;
  if (budget === undefined) return SIM_REASONING_TOKENS;
  if (typeof budget !== 'number' || !Number.isInteger(budget))
    throw new SimBadRequest(`Invalid value at 'generation_config.thinking_config.thinking_budget' (TYPE_INT32), ${String(budget)}`);
  const pro = model.includes('-pro');
  if (budget === 0 && pro) throw new SimBadRequest('Budget 0 is invalid. This model only works in thinking mode.');
  if (budget < -1 || budget > (pro ? 32768 : 24576))
    throw new SimBadRequest(`The thinking budget ${budget} is invalid. Please choose a value between 0 and ${pro ? 32768 : 24576}.`);
  return budget === 0 ? undefined : SIM_REASONING_TOKENS;
}

function parse(raw: unknown, route: RouteMatch): SimConversation {
  const body = isObject(raw) ? raw : {};
  refuseUnknown(body, TOP_LEVEL, '');
  refuseUnknown(body.generationConfig, GENERATION, 'generation_config');
  const generation = (body.generationConfig ?? {}) as Json;
  if (generation.responseSchema !== undefined) checkSchema(generation.responseSchema, 'generation_config.response_schema');
  const contents = checkContents(body.contents);
  const tools = toolNames(body);
  const lastUser = [...contents].reverse().find((c) => c.role !== 'model' && textOf(c.parts) !== '');
  const system = textOf((body.systemInstruction as GeminiContentIn | undefined)?.parts);
  return {
    model: route.model ?? '',
    stream: route.stream === true,
    lastUserText: textOf(lastUser?.parts),
    toolResultText: resultText(contents.at(-1)?.parts),
    tools,
    toolChoice: toolChoiceOf(body),
    json: generation.responseMimeType === 'application/json',
    maxTokens: typeof generation.maxOutputTokens === 'number' ? generation.maxOutputTokens : undefined,
    promptChars: system.length + contents.reduce((sum, c) => sum + textOf(c.parts).length + (resultText(c.parts)?.length ?? 0), 0),
    reasoningTokens: thinkingTokens(generation, route.model ?? ''),
  };
}

const RESPONSE_ID = 'sim-gemini-response';

function usageMetadata(usage: SimUsage, final: boolean) {
  const prompt = { promptTokenCount: usage.prompt, promptTokensDetails: [{ modality: 'TEXT', tokenCount: usage.prompt }] };
  if (!final) return { ...prompt, totalTokenCount: usage.prompt };
  const thoughts = usage.reasoning > 0 ? { thoughtsTokenCount: usage.reasoning } : {};
  return { ...prompt, candidatesTokenCount: usage.completion, ...thoughts, totalTokenCount: usage.prompt + usage.completion + usage.reasoning };
}

/** The answer as the candidate chunks of a stream; the last one carries `finishReason`. */
function chunksOf(answer: SimAnswer): { parts: object[]; finishReason?: string }[] {
  if (answer.kind === 'tool_call')
    return [{ parts: [{ functionCall: { name: answer.name, args: JSON.parse(answer.arguments) as Json } }], finishReason: 'STOP' }];
  const texts = pieces(answer.text);
  const finishReason = answer.finish === 'length' ? 'MAX_TOKENS' : 'STOP';
  return texts.map((text, i) => ({ parts: [{ text }], ...(i === texts.length - 1 ? { finishReason } : {}) }));
}

function wholeAnswer(exchange: { conversation: SimConversation; answer: SimAnswer; usage: SimUsage }): Json {
  const chunks = chunksOf(exchange.answer);
  const parts = exchange.answer.kind === 'text' ? [{ text: exchange.answer.text }] : chunks.flatMap((chunk) => chunk.parts);
  return {
    candidates: [{ content: { parts, role: 'model' }, finishReason: chunks.at(-1)?.finishReason, index: 0 }],
    usageMetadata: usageMetadata(exchange.usage, true),
    modelVersion: exchange.conversation.model,
    responseId: RESPONSE_ID,
  };
}

async function stream(
  res: ServerResponse,
  exchange: { conversation: SimConversation; answer: SimAnswer; usage: SimUsage },
  { cutAfter, chunkDelayMs }: AnswerOptions,
): Promise<void> {
  const chunks = chunksOf(exchange.answer);
  const events = chunks.map((chunk, i) => ({
    candidates: [{ content: { parts: chunk.parts, role: 'model' }, ...(chunk.finishReason ? { finishReason: chunk.finishReason } : {}) }],
    usageMetadata: usageMetadata(exchange.usage, i === chunks.length - 1),
    modelVersion: exchange.conversation.model,
    responseId: RESPONSE_ID,
  }));
  if (!/[?&]alt=sse(&|$)/.test(res.req.url ?? '')) {
    sendJson(res, { status: 200, body: events }); // Without alt=sse Gemini streams one JSON array.
    return;
  }
  startSse(res);
  for (const [i, event] of events.entries()) {
    if (cutAfter !== undefined && i >= cutAfter) return breakOff(res);
    if (chunkDelayMs && i > 0) await sleep(chunkDelayMs);
    res.write(`data: ${JSON.stringify(event)}\r\n\r\n`);
  }
  res.end();
}

/**
 * Drops the connection mid-body once what was written has left: destroying the socket at once can
 * reset it before the client has read the earlier events. Ending the socket without the chunked
 * terminator is, to the client, a body that broke off.
 */
async function breakOff(res: ServerResponse): Promise<void> {
  await new Promise<void>((resolve) => res.write('', () => resolve()));
  res.socket?.end();
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function keyOf(req: IncomingMessage): string | undefined {
  const header = req.headers['x-goog-api-key'];
  if (typeof header === 'string' && header) return header;
  return new URL(req.url ?? '/', 'http://sim').searchParams.get('key') ?? undefined;
}

function sendStatus(res: ServerResponse, status: number, error: Json): void {
  sendJson(res, { status, body: { error: { code: status, status: STATUS_NAMES[status] ?? 'UNKNOWN', ...error } } });
}

export const geminiDialect: Dialect = {
  prefix: '/gemini',
  match: (method, path) => {
    const route = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
    if (method !== 'POST' || !route?.[1]) return null;
    return { model: decodeURIComponent(route[1]), stream: route[2] === 'streamGenerateContent' };
  },
  apiKey: keyOf,
  parse,
  sendAnswer: async (res, exchange, options) => {
    if (exchange.conversation.stream) return stream(res, exchange, options);
    if (options.cutAfter !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 4096 });
      res.write('{"candidates": [{"content": ');
      res.socket?.destroy();
      return;
    }
    sendJson(res, { status: 200, body: wholeAnswer(exchange) });
  },
  sendError: (res, error) => {
    if (error.status === 401 && !keyOf(res.req)) {
      const message =
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.";
      return sendStatus(res, 403, { message });
    }
    if (error.status === 401) {
      const reason = {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      };
      return sendStatus(res, 400, { message: `API key not valid. Please pass a valid API key. (${error.message})`, details: [reason] });
    }
    const retry =
      error.retryAfterSeconds !== undefined ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${error.retryAfterSeconds}s` }] : [];
    sendStatus(res, error.status, { message: error.message, ...(retry.length > 0 ? { details: retry } : {}) });
  },
};
