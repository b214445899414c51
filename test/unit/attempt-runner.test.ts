import pino from 'pino';
import type { ChatResult } from '../../src/domain/chat';
import { AttemptsExhausted, runAttempts, type AttemptOptions } from '../../src/pipeline/attempt-runner';
import { UpstreamError, type UpstreamErrorKind } from '../../src/errors/upstream-error';
import type { Provider } from '../../src/providers/types';
import { NO_BREAKERS } from '../../src/resilience/circuit-breakers';
import { RetryBudget } from '../../src/resilience/retry-budget';
import { preparedCompletion } from '../helpers/prepared-completion';
import { routable } from '../helpers/routable-model';

const prepared = preparedCompletion();

const ok: ChatResult = { upstreamId: 'u', model: 'x', choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
const fail = (kind: UpstreamErrorKind, retryAfterMs?: number) => new UpstreamError({ kind, provider: 'p', message: kind, retryAfterMs });

/** Answers each call with the next scripted outcome for the model it was asked for. */
function scripted(script: Record<string, (UpstreamError | 'ok')[]>) {
  const calls: string[] = [];
  const provider: Provider = {
    id: 'p',
    chat: async (request) => {
      calls.push(request.model);
      const next = script[request.model]?.shift() ?? 'ok';
      if (next === 'ok') return ok;
      throw next;
    },
    chatStream: () => {
      throw new Error('not used');
    },
  };
  return { provider, calls };
}

function options(provider: Provider, overrides: Partial<AttemptOptions> = {}) {
  const waits: number[] = [];
  const opts: AttemptOptions = {
    prepared,
    attempts: [routable({ id: 'a', model: 'a', namespace: 'a' }), routable({ id: 'b', model: 'b', namespace: 'b' })],
    maxSameModelRetries: 2,
    maxSwitches: 2,
    registry: { resolve: () => ({ provider, apiKey: 'k', baseUrl: 'http://x' }) },
    signal: new AbortController().signal,
    timeouts: { firstByteMs: 1000, callMs: 5000 },
    breakers: NO_BREAKERS,
    budget: new RetryBudget({ ratio: 0, minRetries: 1000 }),
    deadline: Date.now() + 60_000,
    logger: pino({ level: 'silent' }),
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...overrides,
  };
  return { opts, waits };
}

const call = async ({ provider, ctx, request }: Parameters<Parameters<typeof runAttempts<ChatResult>>[1]>[0]) => {
  const result = await provider.chat(request, ctx);
  return { value: result, usage: result.usage };
};

describe('runAttempts', () => {
  it('retries the same model with growing backoff, then succeeds', async () => {
    const { provider, calls } = scripted({ a: [fail('server_error'), fail('connection')] });
    const { opts, waits } = options(provider);
    const success = await runAttempts(opts, call);
    expect(calls).toEqual(['a', 'a', 'a']);
    expect(waits).toEqual([250, 500]);
    expect(success.model.model).toBe('a');
    expect(success.records.map((r) => r.statusCode)).toEqual([500, 502, 200]);
  });

  it('switches model at once after a timeout, without waiting on the hung one again', async () => {
    const { provider, calls } = scripted({ a: [fail('server_error'), fail('timeout')] });
    const { opts, waits } = options(provider);
    const success = await runAttempts(opts, call);
    expect(calls).toEqual(['a', 'a', 'b']);
    expect(waits).toEqual([250]);
    expect(success.records.map((r) => r.statusCode)).toEqual([500, 504, 200]);
  });

  it('passes over a model whose retry budget is spent, and fails over to one whose is not', async () => {
    const { provider, calls } = scripted({ a: [fail('server_error'), fail('server_error')] });
    const { opts } = options(provider, { budget: new RetryBudget({ ratio: 0, minRetries: 1 }) });
    const success = await runAttempts(opts, call);
    expect(calls).toEqual(['a', 'a', 'b']);
    expect(success.model.model).toBe('b');
  });

  it("makes a request's second call whatever the budget, and withholds the calls beyond it from models whose budget is spent", async () => {
    const { provider, calls } = scripted({ a: [fail('server_error')], b: [fail('server_error')] });
    const budget = new RetryBudget({ ratio: 0, minRetries: 0 });
    budget.record('b', true);
    budget.record('c', true);
    const attempts = ['a', 'b', 'c'].map((id) => routable({ id, model: id, namespace: id }));
    const { opts } = options(provider, { budget, maxSameModelRetries: 0, attempts });
    const err = await runAttempts(opts, call).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AttemptsExhausted);
    expect(calls).toEqual(['a', 'b']);
  });

  it("gives a request its one retry on the same model even when that model's budget is spent", async () => {
    const { provider, calls } = scripted({ a: [fail('server_error')] });
    const budget = new RetryBudget({ ratio: 0, minRetries: 0 });
    budget.record('a', true);
    const { opts } = options(provider, { budget, attempts: [routable({ id: 'a', model: 'a', namespace: 'a' })] });
    const success = await runAttempts(opts, call);
    expect(calls).toEqual(['a', 'a']);
    expect(success.model.model).toBe('a');
  });

  it('sends that retry to another model instead when one can take it', async () => {
    const { provider, calls } = scripted({ a: [fail('server_error')] });
    const budget = new RetryBudget({ ratio: 0, minRetries: 0 });
    budget.record('a', true);
    const success = await runAttempts(options(provider, { budget }).opts, call);
    expect(calls).toEqual(['a', 'b']);
    expect(success.model.model).toBe('b');
  });

  it('respects a Space that allows no retry at all', async () => {
    const { provider, calls } = scripted({ a: [fail('server_error')] });
    const { opts } = options(provider, { maxSameModelRetries: 0, maxSwitches: 0 });
    await expect(runAttempts(opts, call)).rejects.toBeInstanceOf(AttemptsExhausted);
    expect(calls).toEqual(['a']);
  });

  it('honours a longer Retry-After, and switches model when it is too long', async () => {
    const { provider, calls } = scripted({ a: [fail('rate_limited', 2000), fail('rate_limited', 60_000)] });
    const { opts, waits } = options(provider);
    const success = await runAttempts(opts, call);
    expect(waits).toEqual([2000]);
    expect(calls).toEqual(['a', 'a', 'b']);
    expect(success.model.model).toBe('b');
  });

  it('fails over after the same-model retries are spent', async () => {
    const { provider, calls } = scripted({ a: [fail('server_error'), fail('server_error'), fail('server_error')] });
    const success = await runAttempts(options(provider).opts, call);
    expect(calls).toEqual(['a', 'a', 'a', 'b']);
    expect(success.records).toHaveLength(4);
  });

  it('fails fast on errors that a retry cannot fix', async () => {
    const { provider, calls } = scripted({ a: [fail('bad_request')] });
    const error = await runAttempts(options(provider).opts, call).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(AttemptsExhausted);
    expect((error as AttemptsExhausted).last.kind).toBe('bad_request');
    expect(calls).toEqual(['a']);
  });

  it('gives up with every record when all models fail', async () => {
    const { provider, calls } = scripted({ a: Array(3).fill(fail('server_error')), b: Array(3).fill(fail('connection')) });
    const error = (await runAttempts(options(provider, { maxSameModelRetries: 1 }).opts, call).catch((err: unknown) => err)) as AttemptsExhausted;
    expect(calls).toEqual(['a', 'a', 'b', 'b']);
    expect(error.records.map((r) => r.statusCode)).toEqual([500, 500, 502, 502]);
    expect(error.last.kind).toBe('connection');
  });
});
