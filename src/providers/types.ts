import type { LookupFunction } from 'node:net';
import type { Logger } from 'pino';
import type { ChatChunk, ChatRequest, ChatResult } from '../domain/chat';
import type { EmbeddingRequest, EmbeddingResult } from '../domain/embedding';

/** Everything a call needs besides the request. */
export interface ProviderContext {
  apiKey: string;
  baseUrl: string;
  /** Aborts the upstream call (client gone, job cancelled, attempt timed out). */
  signal: AbortSignal;
  /**
   * Longest wait for the first byte, and for each next chunk of a stream, in ms. A whole (non-streamed)
   * answer arrives in one piece, so for `chat` the pipeline sets it to the whole call's limit.
   */
  timeoutMs: number;
  /** Longest whole call, first byte to last, in ms; absent: only `timeoutMs` applies. */
  callTimeoutMs?: number;
  logger: Logger;
  /** Headers the client asked to forward (`custom_headers.headers`); the adapter's own headers win over them. */
  forwardedHeaders?: Readonly<Record<string, string>>;
  /** Set for a tenant-given base URL: resolves its host refusing internal addresses (SSRF). */
  lookup?: LookupFunction;
}

/**
 * An upstream provider. Translation to and from the wire format lives in pure functions beside each
 * adapter; these methods only do the I/O. All throw `UpstreamError`.
 */
export interface Provider {
  readonly id: string;
  /** Highest temperature the provider accepts, when below OpenAI's 2; the pipeline lowers it and says so. */
  readonly maxTemperature?: number;
  /**
   * Brings a request's reasoning (set, for a model that takes one) within what the provider's API
   * accepts with it, changing the request (the call's own copy): a budget it can take, the parameters
   * it refuses beside thinking left out, or the reasoning itself where it cannot apply. Returns a
   * sentence for `metadata.warning` per change; `model` is the name the client knows. Absent: the
   * adapter sends the reasoning as it is.
   */
  fitReasoning?(request: ChatRequest, model: string): string[];
  chat(request: ChatRequest, ctx: ProviderContext): Promise<ChatResult>;
  /**
   * Deltas as they arrive, in batches: the chunks one read of the upstream's body completed, together
   * (never an empty batch). The last chunk carries usage. One step of the iterator per read, not per
   * chunk: each step costs its consumer promises and a turn of the microtask queue.
   */
  chatStream(request: ChatRequest, ctx: ProviderContext): AsyncIterable<ChatChunk[]>;
  /** Vectors for the inputs, one each in input order; absent for providers that serve no embedding model. */
  embed?(request: EmbeddingRequest, ctx: ProviderContext): Promise<EmbeddingResult>;
}
