import type { ChatChunk, ChatRequest, ChatResult } from '../../domain/chat';
import type { EmbeddingRequest, EmbeddingResult } from '../../domain/embedding';
import { translateSse } from '../http/sse';
import { postUpstream, readJson, type UpstreamResponse } from '../http/upstream-fetch';
import type { Provider, ProviderContext } from '../types';
import { embeddingResultOf, embeddingsBody } from './embeddings';
import { errorBodyMessage } from './errors';
import { outgoingCall, type CallMode } from './request';
import { chatResultOf } from './response';
import { OpenAiStreamTranslator } from './stream';
import type { OpenAiCompatibleVendor } from './vendors';

/** The Provider for one OpenAI-compatible vendor: only I/O; translation lives in the pure modules beside it. */
export class OpenAiCompatibleProvider implements Provider {
  readonly id: string;

  constructor(private readonly vendor: OpenAiCompatibleVendor) {
    this.id = vendor.id;
  }

  async chat(request: ChatRequest, ctx: ProviderContext): Promise<ChatResult> {
    const upstream = await this.post(request, ctx, 'whole');
    return chatResultOf(this.id, await readJson<unknown>(this.id, upstream, ctx));
  }

  chatStream(request: ChatRequest, ctx: ProviderContext): AsyncIterable<ChatChunk[]> {
    return translateSse({ provider: this.id, ctx, open: () => this.post(request, ctx, 'stream') }, new OpenAiStreamTranslator(this.vendor));
  }

  /** `POST <baseUrl>/embeddings`, OpenAI's format (Mistral, Together, Ollama and vLLM serve the same). */
  async embed(request: EmbeddingRequest, ctx: ProviderContext): Promise<EmbeddingResult> {
    const headers: Record<string, string> = { ...this.vendor.headers };
    if (ctx.apiKey) headers.authorization = `Bearer ${ctx.apiKey}`;
    const url = `${ctx.baseUrl.replace(/\/+$/, '')}/embeddings`;
    const upstream = await postUpstream({ provider: this.id, url, headers, body: embeddingsBody(this.vendor, request), ctx, errorMessage: errorBodyMessage });
    return embeddingResultOf(this.id, await readJson<unknown>(this.id, upstream, ctx), request.inputs.length);
  }

  private post(request: ChatRequest, ctx: ProviderContext, mode: CallMode): Promise<UpstreamResponse> {
    const call = outgoingCall(this.vendor, request, { baseUrl: ctx.baseUrl, apiKey: ctx.apiKey, mode });
    return postUpstream({ provider: this.id, ...call, ctx, errorMessage: errorBodyMessage });
  }
}
