import type { Logger } from 'pino';
import type { ChatChunk, ChatRequest, Usage } from '../domain/chat';
import type { RoutableModel } from '../domain/routable-model';
import { ProviderError } from '../providers/provider-error';
import type { ProviderRegistry } from '../providers/registry';
import type { Provider, ProviderContext } from '../providers/types';
import { NO_USAGE, statusOfError, type AttemptRecord } from './attempt-record';
import { fitRequest } from './fit-request';
import type { PreparedCompletion } from './prepare-request';

/** Waits before retrying the same model: 250 ms, 500 ms, 1 s, ... or what `Retry-After` asks, if longer. */
export const BACKOFF_BASE_MS = 250;
/** A `Retry-After` longer than this switches to the next model instead of waiting, in ms. */
export const MAX_RETRY_WAIT_MS = 10_000;

export interface AttemptOptions {
  prepared: PreparedCompletion;
  attempts: RoutableModel[];
  maxSameModelRetries: number;
  registry: ProviderRegistry;
  signal: AbortSignal;
  upstreamTimeoutMs: number;
  /** Epoch ms after which no new call starts. */
  deadline: number;
  logger: Logger;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** One upstream call to make. */
export interface AttemptCall {
  model: RoutableModel;
  provider: Provider;
  ctx: ProviderContext;
  request: ChatRequest;
}

export interface Success<T> {
  model: RoutableModel;
  value: T;
  records: AttemptRecord[];
  notes: string[];
}

/** Every attempt failed; `records` holds each of them. */
export class AttemptsExhausted extends Error {
  constructor(
    readonly last: ProviderError,
    readonly records: AttemptRecord[],
  ) {
    super(last.message);
    this.name = 'AttemptsExhausted';
  }
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function asProviderError(err: unknown, provider: string): ProviderError {
  if (err instanceof ProviderError) return err;
  return new ProviderError({ kind: 'invalid_response', provider, message: err instanceof Error ? err.message : String(err) });
}

/** How long to wait before the next call to the same model; null means switch models instead. */
function retryDelay(error: ProviderError, retry: number, options: AttemptOptions): number | null {
  if (retry >= options.maxSameModelRetries) return null;
  const wait = Math.max(BACKOFF_BASE_MS * 2 ** retry, error.retryAfterMs ?? 0);
  if (wait > MAX_RETRY_WAIT_MS || Date.now() + wait >= options.deadline) return null;
  return wait;
}

/**
 * Calls the models in order: each retried on retryable failures (429, 5xx, timeouts, broken
 * connections) with backoff, then the next model. A non-retryable failure (400, 401, 403, 404)
 * ends the search at once. `call` performs one upstream call and resolves with its value and usage.
 */
export async function runAttempts<T>(options: AttemptOptions, call: (attempt: AttemptCall) => Promise<{ value: T; usage: Usage }>): Promise<Success<T>> {
  const records: AttemptRecord[] = [];
  const sleep = options.sleep ?? abortableSleep;
  let last: ProviderError | undefined;
  for (const model of options.attempts) {
    const binding = options.registry.resolve(model.provider);
    if (!binding) continue;
    const { request, notes } = fitRequest(options.prepared, model, binding.provider);
    for (let retry = 0; ; retry += 1) {
      const startedAt = Date.now();
      const ctx: ProviderContext = { apiKey: binding.apiKey, baseUrl: binding.baseUrl, signal: options.signal, timeoutMs: options.upstreamTimeoutMs, logger: options.logger };
      try {
        const { value, usage } = await call({ model, provider: binding.provider, ctx, request });
        records.push({ model, retry, startedAt, latencyMs: Date.now() - startedAt, statusCode: 200, usage });
        return { model, value, records, notes };
      } catch (err) {
        const error = asProviderError(err, model.provider);
        last = error;
        records.push({ model, retry, startedAt, latencyMs: Date.now() - startedAt, statusCode: statusOfError(error), usage: NO_USAGE, error });
        options.logger.warn({ provider: model.provider, model: model.model, kind: error.kind, status: error.status, retry }, 'upstream call failed');
        if (!error.retryable || options.signal.aborted) throw new AttemptsExhausted(error, records);
        const wait = retryDelay(error, retry, options);
        if (wait === null) break;
        await sleep(wait, options.signal);
      }
    }
    if (Date.now() >= options.deadline) break;
  }
  throw new AttemptsExhausted(last ?? new ProviderError({ kind: 'server_error', provider: 'switchyard', message: 'No model could be called.' }), records);
}

/** Whether a chunk carries something a client sees (so a failure after it can no longer fail over). */
export function isSubstantive(chunk: ChatChunk): boolean {
  return chunk.choices.some((c) => (c.delta.content ?? '') !== '' || (c.delta.tool_calls?.length ?? 0) > 0 || c.finish_reason !== null);
}
