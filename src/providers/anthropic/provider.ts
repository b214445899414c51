import type { ChatChunk, ChatRequest, ChatResult } from '../../domain/chat';
import { translateSse } from '../http/sse';
import { postUpstream, readJson, type UpstreamResponse } from '../http/upstream-fetch';
import type { Provider, ProviderContext } from '../types';
import { anthropicErrorMessage } from './errors';
import { ANTHROPIC_MAX_TEMPERATURE, messagesHeaders, messagesUrl, toMessagesRequest } from './request';
import { toChatResult } from './response';
import { AnthropicStreamTranslator } from './stream';
import { fitThinking } from './thinking';

const PROVIDER = 'anthropic';

function post(request: ChatRequest, ctx: ProviderContext, stream: boolean): Promise<UpstreamResponse> {
  return postUpstream({
    provider: PROVIDER,
    url: messagesUrl(ctx.baseUrl),
    headers: messagesHeaders(ctx.apiKey),
    body: toMessagesRequest(request, { stream }),
    ctx,
    errorMessage: anthropicErrorMessage,
  });
}

/** Anthropic's Messages API (`POST /v1/messages`). Translation lives in request.ts, response.ts and stream.ts. */
export const anthropicProvider: Provider = {
  id: PROVIDER,
  maxTemperature: ANTHROPIC_MAX_TEMPERATURE,
  fitReasoning: fitThinking,

  async chat(request: ChatRequest, ctx: ProviderContext): Promise<ChatResult> {
    const upstream = await post(request, ctx, false);
    return toChatResult(await readJson<unknown>(PROVIDER, upstream, ctx));
  },

  chatStream(request: ChatRequest, ctx: ProviderContext): AsyncIterable<ChatChunk[]> {
    return translateSse({ provider: PROVIDER, ctx, open: () => post(request, ctx, true) }, new AnthropicStreamTranslator());
  },
};
