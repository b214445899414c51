import type { ChatRequest, ResponseFormat, ToolChoice, ToolDefinition } from '../../domain/chat';
import { systemInstructionOf, toContents } from './contents';
import { hasProperties, toGeminiSchema } from './schema';
import { thinkingConfigOf } from './thinking';
import type { GeminiFunctionDeclaration, GeminiGenerationConfig, GeminiRequestBody } from './wire';

export interface GeminiCall {
  url: string;
  headers: Record<string, string>;
  body: GeminiRequestBody;
}

export interface GeminiTarget {
  /** Without the version, e.g. `https://generativelanguage.googleapis.com`. */
  baseUrl: string;
  apiKey: string;
  stream: boolean;
}

/** `${baseUrl}/v1beta/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse` (SSE, not a JSON array). */
export function geminiUrl(baseUrl: string, model: string, stream: boolean): string {
  const name = encodeURIComponent(model.replace(/^models\//, ''));
  const root = baseUrl.replace(/\/+$/, '');
  return stream ? `${root}/v1beta/models/${name}:streamGenerateContent?alt=sse` : `${root}/v1beta/models/${name}:generateContent`;
}

function declaration(tool: ToolDefinition): GeminiFunctionDeclaration {
  const parameters = toGeminiSchema(tool.function.parameters);
  return {
    name: tool.function.name,
    ...(tool.function.description ? { description: tool.function.description } : {}),
    // A function without parameters leaves them out: Gemini refuses an OBJECT with no properties.
    ...(hasProperties(parameters) ? { parameters } : {}),
  };
}

function toolConfig(choice: ToolChoice | undefined): GeminiRequestBody['toolConfig'] {
  if (choice === undefined) return undefined;
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
}

function jsonMode(format: ResponseFormat | undefined): GeminiGenerationConfig {
  if (format?.type === 'json_object') return { responseMimeType: 'application/json' };
  if (format?.type !== 'json_schema') return {};
  const schema = format.json_schema.schema;
  return { responseMimeType: 'application/json', ...(schema ? { responseSchema: toGeminiSchema(schema) } : {}) };
}

/** Sampling and output settings, and the reasoning as `thinkingConfig`; `logit_bias` and `user` have no Gemini equivalent and are dropped. */
function generationConfig(request: ChatRequest): GeminiGenerationConfig | undefined {
  const config: GeminiGenerationConfig = {
    maxOutputTokens: request.max_tokens,
    temperature: request.temperature,
    topP: request.top_p,
    stopSequences: request.stop && request.stop.length > 0 ? request.stop : undefined,
    candidateCount: request.n,
    presencePenalty: request.presence_penalty,
    frequencyPenalty: request.frequency_penalty,
    seed: request.seed,
    ...jsonMode(request.response_format),
  };
  const set = Object.entries(config).filter(([, value]) => value !== undefined);
  const generation = set.length > 0 ? (Object.fromEntries(set) as GeminiGenerationConfig) : undefined;
  // Most requests ask nothing of reasoning: one test of an absent field.
  const reasoning = request.reasoning;
  return reasoning === undefined ? generation : { ...generation, thinkingConfig: thinkingConfigOf(reasoning) };
}

export function toGeminiBody(request: ChatRequest): GeminiRequestBody {
  const tools = request.tools && request.tools.length > 0 ? request.tools : undefined;
  const body: GeminiRequestBody = { contents: toContents(request.messages) };
  const systemInstruction = systemInstructionOf(request.messages);
  if (systemInstruction) body.systemInstruction = systemInstruction;
  if (tools) body.tools = [{ functionDeclarations: tools.map(declaration) }];
  const config = tools ? toolConfig(request.tool_choice) : undefined;
  if (config) body.toolConfig = config;
  const generation = generationConfig(request);
  if (generation) body.generationConfig = generation;
  return body;
}

/** The whole upstream call. The key goes in `x-goog-api-key`, never in the URL (URLs get logged). */
export function toGeminiCall(request: ChatRequest, target: GeminiTarget): GeminiCall {
  return {
    url: geminiUrl(target.baseUrl, request.model, target.stream),
    headers: { 'x-goog-api-key': target.apiKey },
    body: toGeminiBody(request),
  };
}
