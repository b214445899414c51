import type { Logger } from 'pino';
import type { ChatChunk, ChatRequest, ChatResult } from '../domain/chat';

/** Everything a call needs besides the request. */
export interface ProviderContext {
  apiKey: string;
  baseUrl: string;
  /** Aborts the upstream call (client gone, job cancelled, attempt timed out). */
  signal: AbortSignal;
  /** Time allowed until the response headers (or first byte of a stream), in ms. */
  timeoutMs: number;
  logger: Logger;
}

/**
 * An upstream provider. Translation to and from the wire format lives in pure functions beside each
 * adapter; these two methods only do the I/O. Both throw `ProviderError`.
 */
export interface Provider {
  readonly id: string;
  /** Highest temperature the provider accepts, when below OpenAI's 2; the pipeline lowers it and says so. */
  readonly maxTemperature?: number;
  chat(request: ChatRequest, ctx: ProviderContext): Promise<ChatResult>;
  /** Deltas as they arrive; the last chunk carries usage. */
  chatStream(request: ChatRequest, ctx: ProviderContext): AsyncIterable<ChatChunk>;
}
