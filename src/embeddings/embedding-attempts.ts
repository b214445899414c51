import type { Logger } from 'pino';
import type { EmbeddingRequest, EmbeddingResult } from '../domain/embedding';
import type { RoutableModel } from '../domain/routable-model';
import { NO_USAGE, statusOfError, type AttemptRecord } from '../pipeline/attempt-record';
import { abortableSleep, AttemptsExhausted, BACKOFF_BASE_MS, MAX_RETRY_WAIT_MS } from '../pipeline/attempt-runner';
import { UpstreamError } from '../errors/upstream-error';
import type { ProviderBinding } from '../providers/registry';

export interface EmbeddingAttempts {
  model: RoutableModel;
  binding: ProviderBinding;
  request: EmbeddingRequest;
  /** Retries on the same model after a retryable failure (the Space's `max_same_model_retries`). */
  maxRetries: number;
  /** Longest call, in ms: an embeddings answer arrives whole, so it is also the wait for the first byte. */
  callTimeoutMs: number;
  /** Epoch ms after which no new call starts. */
  deadline: number;
  signal: AbortSignal;
  logger: Logger;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

function asUpstreamError(err: unknown, provider: string): UpstreamError {
  if (err instanceof UpstreamError) return err;
  return new UpstreamError({ kind: 'invalid_response', provider, message: err instanceof Error ? err.message : String(err) });
}

/** Wait before the next call, as for chat (backoff or `Retry-After`); null: give up. A timeout is not retried. */
function retryDelay(error: UpstreamError, retry: number, options: EmbeddingAttempts): number | null {
  if (!error.retryable || error.kind === 'timeout' || retry >= options.maxRetries || options.signal.aborted) return null;
  const wait = Math.max(BACKOFF_BASE_MS * 2 ** retry, error.retryAfterMs ?? 0);
  if (wait > MAX_RETRY_WAIT_MS || Date.now() + wait >= options.deadline) return null;
  return wait;
}

/**
 * Calls one model, retrying it on 429, 5xx and broken connections with backoff. There is no failover to
 * another model: its vectors would live in another space (even at the same length), and a client mixing
 * them in one index would get wrong neighbours without any error. Throws AttemptsExhausted.
 */
export async function embedWithRetries(options: EmbeddingAttempts): Promise<{ result: EmbeddingResult; records: AttemptRecord[] }> {
  const { model, binding } = options;
  const embed = binding.provider.embed?.bind(binding.provider);
  const records: AttemptRecord[] = [];
  if (!embed)
    throw new AttemptsExhausted(
      new UpstreamError({ kind: 'bad_request', provider: model.provider, message: `${model.provider} serves no embeddings` }),
      records,
    );
  for (let retry = 0; ; retry += 1) {
    const startedAt = Date.now();
    const ctx = {
      apiKey: binding.apiKey,
      baseUrl: binding.baseUrl,
      signal: options.signal,
      timeoutMs: options.callTimeoutMs,
      callTimeoutMs: options.callTimeoutMs,
      logger: options.logger,
      lookup: binding.lookup,
    };
    try {
      const result = await embed(options.request, ctx);
      const usage = { prompt_tokens: result.promptTokens, completion_tokens: 0, total_tokens: result.promptTokens };
      records.push({ kind: 'model', model, retry, startedAt, latencyMs: Date.now() - startedAt, statusCode: 200, usage });
      return { result, records };
    } catch (err) {
      const error = asUpstreamError(err, model.provider);
      records.push({ kind: 'model', model, retry, startedAt, latencyMs: Date.now() - startedAt, statusCode: statusOfError(error), usage: NO_USAGE, error });
      options.logger.warn({ provider: model.provider, model: model.model, kind: error.kind, status: error.status, retry }, 'upstream embeddings call failed');
      const wait = retryDelay(error, retry, options);
      if (wait === null) throw new AttemptsExhausted(error, records);
      await (options.sleep ?? abortableSleep)(wait, options.signal);
    }
  }
}
