import type { Logger } from 'pino';
import type { ChatChunk, ChatRequest, Usage } from '../domain/chat';
import type { RoutableModel } from '../domain/routable-model';
import { UpstreamError } from '../errors/upstream-error';
import type { ProviderBinding, ProviderRegistry } from '../providers/registry';
import type { Provider, ProviderContext } from '../providers/types';
import { outcomeOf, type Admission, type ModelBreakers } from '../resilience/circuit-breakers';
import type { UpstreamTimeouts } from '../resilience/resilience';
import type { RetryBudget } from '../resilience/retry-budget';
import { NO_USAGE, statusOfError, type AttemptRecord } from './attempt-record';
import { fitRequest } from './fit-request';
import type { PreparedCompletion } from './prepare-request';

/** Waits before retrying the same model: 250 ms, 500 ms, 1 s, ... or what `Retry-After` asks, if longer. */
export const BACKOFF_BASE_MS = 250;
/** A `Retry-After` longer than this switches to the next model instead of waiting, in ms. */
export const MAX_RETRY_WAIT_MS = 10_000;
/**
 * Calls a request gets whatever the circuit breakers and retry budgets say (when its failures are
 * retryable and its policies allow a retry): its first, and one retry. Most failures are a single
 * request's bad luck, which one retry answers; a model that keeps failing costs each request at most
 * this many calls, while its breaker keeps the requests away from it.
 */
export const GUARANTEED_CALLS = 2;

export interface AttemptOptions {
  prepared: PreparedCompletion;
  /**
   * Models in order of preference (the whole ranked list: the breakers and `maxSwitches` decide how far it
   * goes). Walked again from the start for each question, and past the first only after a failure.
   */
  attempts: Iterable<RoutableModel>;
  maxSameModelRetries: number;
  /** Models called after the first, at most (the Space's `max_switch_model_retries`); a model skipped for its open breaker is no switch. */
  maxSwitches: number;
  registry: ProviderRegistry;
  signal: AbortSignal;
  timeouts: UpstreamTimeouts;
  /** Epoch ms after which no new call starts. */
  deadline: number;
  logger: Logger;
  breakers: ModelBreakers;
  budget: RetryBudget;
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
    readonly last: UpstreamError,
    readonly records: AttemptRecord[],
  ) {
    super(last.message);
    this.name = 'AttemptsExhausted';
  }
}

type Call<T> = (attempt: AttemptCall) => Promise<{ value: T; usage: Usage }>;

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

function asUpstreamError(err: unknown, provider: string): UpstreamError {
  if (err instanceof UpstreamError) return err;
  return new UpstreamError({ kind: 'invalid_response', provider, message: err instanceof Error ? err.message : String(err) });
}

/** The state of one request's attempts. */
class AttemptRun<T> {
  readonly records: AttemptRecord[] = [];
  /** Models skipped because their breaker is open, in order (called later only to make up the guaranteed calls). */
  readonly skipped: RoutableModel[] = [];
  /** Ids of the models called: `maxSwitches + 1` of them at most (an array: a few ids, cheaper than a Set). */
  private readonly called: string[] = [];
  last: UpstreamError | undefined;

  constructor(
    private readonly options: AttemptOptions,
    private readonly call: Call<T>,
  ) {}

  exhausted(): AttemptsExhausted {
    return new AttemptsExhausted(
      this.last ?? new UpstreamError({ kind: 'server_error', provider: 'switchyard', message: 'No model could be called.' }),
      this.records,
    );
  }

  /** Whether the request has not had its guaranteed calls yet (those no breaker or retry budget withholds). */
  owed(): boolean {
    return this.records.length < GUARANTEED_CALLS;
  }

  /** Whether one more model may be called: switches count models called, not models skipped. */
  maySwitch(): boolean {
    return this.called.length <= this.options.maxSwitches;
  }

  /** Whether no new call may start: past the deadline, after at least one call. */
  pastDeadline(): boolean {
    return this.records.length > 0 && Date.now() >= this.options.deadline;
  }

  /** Whether a switch could reach another model now: one not called yet, reachable, within `maxSwitches`. */
  private canSwitch(): boolean {
    if (!this.maySwitch()) return false;
    for (const m of this.options.attempts) if (!this.called.includes(m.id) && this.options.registry.resolve(m) !== null) return true;
    return false;
  }

  /**
   * Whether the model's spent retry budget withholds this call: any call beyond the request's
   * guaranteed ones, and its guaranteed retry on the same model when another model can take it.
   */
  private withheld(modelId: string, retry: number): boolean {
    if (this.options.budget.allows(modelId)) return false;
    return !this.owed() || (retry > 0 && this.canSwitch());
  }

  /**
   * How long to wait before the next call to the same model; null means switch models instead. A
   * model that timed out is left at once: a hung upstream rarely answers the next call sooner, and each
   * wait costs the client a whole first-byte timeout. A model its breaker holds open (a probe, or a call
   * made only because nothing else could be) is left for another model; retried only for the request's
   * guaranteed retry, when no other model can take it.
   */
  private retryDelay(error: UpstreamError, retry: number, admission: Admission): number | null {
    const { options } = this;
    if (retry >= options.maxSameModelRetries || error.kind === 'timeout') return null;
    if (admission !== 'closed' && (!this.owed() || this.canSwitch())) return null;
    const wait = Math.max(BACKOFF_BASE_MS * 2 ** retry, error.retryAfterMs ?? 0);
    if (wait > MAX_RETRY_WAIT_MS || Date.now() + wait >= options.deadline) return null;
    return wait;
  }

  /** Calls one model, retrying it with backoff; resolves with a success, or null to try the next model. */
  async tryModel(model: RoutableModel, binding: ProviderBinding, admission: Admission): Promise<Success<T> | null> {
    const { options } = this;
    const { request, notes } = fitRequest(options.prepared, model, binding.provider);
    for (let retry = 0; ; retry += 1) {
      if (this.records.length > 0 && this.withheld(model.id, retry)) {
        options.logger.warn({ provider: model.provider, model: model.model }, 'retry budget of the model spent: no retry or failover to it');
        // A probe won but never made is given back, so another worker can probe the model.
        options.breakers.record(model.id, 'neutral', admission);
        return null;
      }
      if (!this.called.includes(model.id)) this.called.push(model.id);
      const startedAt = Date.now();
      const ctx: ProviderContext = {
        apiKey: binding.apiKey,
        baseUrl: binding.baseUrl,
        signal: options.signal,
        timeoutMs: options.timeouts.firstByteMs,
        callTimeoutMs: options.timeouts.callMs,
        logger: options.logger,
        forwardedHeaders: options.prepared.forwardedHeaders,
        lookup: binding.lookup,
      };
      try {
        const { value, usage } = await this.call({ model, provider: binding.provider, ctx, request });
        this.records.push({ kind: 'model', model, retry, startedAt, latencyMs: Date.now() - startedAt, statusCode: 200, usage });
        options.breakers.record(model.id, 'success', admission);
        options.budget.record(model.id, false);
        return { model, value, records: this.records, notes: this.skipped.length > 0 ? [...notes, ...this.skippedNote()] : notes };
      } catch (err) {
        const error = asUpstreamError(err, model.provider);
        this.last = error;
        this.records.push({
          kind: 'model',
          model,
          retry,
          startedAt,
          latencyMs: Date.now() - startedAt,
          statusCode: statusOfError(error),
          usage: NO_USAGE,
          error,
        });
        const outcome = options.signal.aborted ? 'neutral' : outcomeOf(error);
        options.breakers.record(model.id, outcome, admission);
        options.budget.record(model.id, outcome === 'failure');
        options.logger.warn({ provider: model.provider, model: model.model, kind: error.kind, status: error.status, retry }, 'upstream call failed');
        if (!error.retryable || options.signal.aborted) throw this.exhausted();
        const wait = this.retryDelay(error, retry, admission);
        if (wait === null) return null;
        await (options.sleep ?? abortableSleep)(wait, options.signal);
        // Its breaker may have opened meanwhile (this failure, or another worker's): switch instead, if anything can take the switch.
        if (options.breakers.isOpen(model.id) && (!this.owed() || this.canSwitch())) return null;
      }
    }
  }

  private skippedNote(): string[] {
    const skipped = this.skipped.filter((m) => !this.called.includes(m.id));
    if (skipped.length === 0) return [];
    return [`Skipped while cooling down after repeated upstream failures: ${skipped.map((m) => m.model).join(', ')}.`];
  }
}

/**
 * Calls the models in order: each retried on retryable failures (429, 5xx, broken connections) with
 * backoff, then the next model, `maxSwitches` models after the first at most. A model whose circuit
 * breaker is open is skipped without counting as a switch, so the switches go to models that may
 * answer. Every call after the request's second must fit the retry budget of the model it goes to (a
 * model that keeps failing is passed over). The first two calls are guaranteed (GUARANTEED_CALLS):
 * when the open breakers left the request with fewer, the skipped models are called anyway, in
 * order, so a request is never refused without a try, nor left after one failure that a retry would
 * have answered. A non-retryable failure (400, 401, 403, 404) ends the search at once. `call`
 * performs one upstream call and resolves with its value and usage.
 */
export async function runAttempts<T>(options: AttemptOptions, call: Call<T>): Promise<Success<T>> {
  const run = new AttemptRun(options, call);
  for (const model of options.attempts) {
    if (!run.maySwitch() || run.pastDeadline()) break;
    const binding = options.registry.resolve(model);
    if (!binding) continue;
    const admitted = options.breakers.admit(model.id);
    const admission = typeof admitted === 'string' ? admitted : await admitted;
    if (admission === 'open') {
      options.logger.info({ provider: model.provider, model: model.model }, 'model skipped: circuit breaker open');
      run.skipped.push(model);
      continue;
    }
    const success = await run.tryModel(model, binding, admission);
    if (success) return success;
  }
  for (const model of run.skipped) {
    if (!run.owed() || !run.maySwitch() || run.pastDeadline()) break;
    const binding = options.registry.resolve(model);
    const success = binding ? await run.tryModel(model, binding, 'open') : null;
    if (success) return success;
  }
  throw run.exhausted();
}

/** Whether a chunk carries something a client sees (so a failure after it can no longer fail over). */
export function isSubstantive(chunk: ChatChunk): boolean {
  return chunk.choices.some((c) => (c.delta.content ?? '') !== '' || (c.delta.tool_calls?.length ?? 0) > 0 || c.finish_reason !== null);
}
