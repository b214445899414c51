import type { ChatChunk, ChatRequest, ChatResult } from '../../domain/chat';
import { postUpstream, readJson, type UpstreamResponse } from '../http/upstream-fetch';
import { translateSse } from '../http/sse';
import { UpstreamError } from '../../errors/upstream-error';
import type { Provider, ProviderContext } from '../types';
import { geminiErrorMessage, refineGeminiError } from './errors';
import { toGeminiCall } from './request';
import { fromGeminiResponse } from './response';
import { GeminiStreamTranslator } from './stream';
import { fitThinkingBudget } from './thinking';
import type { GeminiResponse } from './wire';

const PROVIDER = 'gemini';

async function post(request: ChatRequest, ctx: ProviderContext, stream: boolean): Promise<UpstreamResponse> {
  const call = toGeminiCall(request, { baseUrl: ctx.baseUrl, apiKey: ctx.apiKey, stream });
  try {
    return await postUpstream({ provider: PROVIDER, ...call, ctx, errorMessage: geminiErrorMessage });
  } catch (err) {
    throw err instanceof UpstreamError ? refineGeminiError(err) : err;
  }
}

async function chat(request: ChatRequest, ctx: ProviderContext): Promise<ChatResult> {
  const upstream = await post(request, ctx, false);
  const body = await readJson<GeminiResponse>(PROVIDER, upstream, ctx);
  return fromGeminiResponse(body, request.model);
}

function chatStream(request: ChatRequest, ctx: ProviderContext): AsyncIterable<ChatChunk[]> {
  return translateSse({ provider: PROVIDER, ctx, open: () => post(request, ctx, true) }, new GeminiStreamTranslator());
}

/** Google Gemini through its own API (`generateContent` / `streamGenerateContent`), not its OpenAI-compatible one. */
export const geminiProvider: Provider = { id: PROVIDER, chat, chatStream, fitReasoning: fitThinkingBudget };
