import type { ChatChunk, ChatRequest, ChatResult } from '../../domain/chat';
import { readSse, translateRead, type SseEvent } from '../http/sse';
import { postUpstream, readJson, type UpstreamResponse } from '../http/upstream-fetch';
import type { Provider, ProviderContext } from '../types';
import { anthropicErrorMessage } from './errors';
import { ANTHROPIC_MAX_TEMPERATURE, messagesHeaders, messagesUrl, toMessagesRequest } from './request';
import { toChatResult } from './response';
import { AnthropicStreamTranslator } from './stream';

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

  async chat(request: ChatRequest, ctx: ProviderContext): Promise<ChatResult> {
    const upstream = await post(request, ctx, false);
    return toChatResult(await readJson<unknown>(PROVIDER, upstream, ctx));
  },

  async *chatStream(request: ChatRequest, ctx: ProviderContext): AsyncIterable<ChatChunk[]> {
    const upstream = await post(request, ctx, true);
    const translator = new AnthropicStreamTranslator();
    const translate = (event: SseEvent) => translator.feed(event);
    for await (const events of readSse(PROVIDER, upstream, ctx)) {
      // Events after the stop give nothing (`feed` answers []).
      const batch: ChatChunk[] = [];
      const failure = translateRead(events, translate, batch);
      // Deltas read before an error event go out before it.
      if (batch.length > 0) yield batch;
      if (failure !== undefined) throw failure;
      if (translator.done) break;
    }
    translator.end();
  },
};
