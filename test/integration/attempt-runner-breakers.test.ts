import { Redis } from 'ioredis';
import pino from 'pino';
import type { ChatResult } from '../../src/domain/chat';
import { AttemptsExhausted, runAttempts, type AttemptCall, type AttemptOptions } from '../../src/pipeline/attempt-runner';
import { UpstreamError } from '../../src/errors/upstream-error';
import type { Provider } from '../../src/providers/types';
import { RedisCircuitBreakers, type BreakerSettings } from '../../src/resilience/circuit-breakers';
import { RetryBudget } from '../../src/resilience/retry-budget';
import { eventually, sleep } from '../helpers/completion-fixtures';
import { preparedCompletion } from '../helpers/prepared-completion';
import { routable } from '../helpers/routable-model';
import { TEST_REDIS_URL, uniqueSuffix } from '../helpers/test-database';

const logger = pino({ level: 'silent' });
const connections: Redis[] = [];
const started: RedisCircuitBreakers[] = [];
const prefixes: string[] = [];

afterAll(async () => {
  started.forEach((b) => b.stop());
  // The breakers' keys have no expiry: each prefix's keys go with the run that made them.
  const redis = connections[0];
  if (redis) for (const prefix of prefixes) for (const key of await redis.keys(`${prefix}:*`)) await redis.del(key);
  await Promise.all(connections.map((connection) => connection.quit().catch(() => undefined)));
});

function connect(): Redis {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  connections.push(redis);
  return redis;
}

/** Shared breakers on real Redis under a prefix of their own; one failure opens a breaker for a minute unless told otherwise. */
async function breakers(settings: Partial<BreakerSettings> = {}): Promise<RedisCircuitBreakers> {
  const prefix = `test-runner-${uniqueSuffix()}`;
  prefixes.push(prefix);
  const b = new RedisCircuitBreakers(
    { redis: connect(), subscriber: connect(), prefix, logger },
    { minFailures: 1, failureRatio: 0.5, windowMs: 10_000, cooldownMs: 60_000, maxCooldownMs: 60_000, ...settings },
  );
  started.push(b);
  await b.start();
  return b;
}

/** Opens these models' breakers the way a worker does: by recording a failure of each. */
async function open(b: RedisCircuitBreakers, ids: string[]): Promise<void> {
  for (const id of ids) b.record(id, 'failure', 'closed');
  await eventually(() => (ids.every((id) => b.isOpen(id)) ? true : null));
}

const ok: ChatResult = { upstreamId: 'u', model: 'x', choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
const serverError = () => new UpstreamError({ kind: 'server_error', provider: 'p', message: 'HTTP 500', status: 500 });

/** An upstream answering each call with the next scripted outcome for its model (`dead` models always fail); records the models called. */
function upstream(script: Record<string, ('fail' | 'ok')[]>, dead: string[] = []) {
  const calls: string[] = [];
  const provider: Provider = {
    id: 'p',
    chat: async (request) => {
      calls.push(request.model);
      if (dead.includes(request.model) || script[request.model]?.shift() === 'fail') throw serverError();
      return ok;
    },
    chatStream: () => {
      throw new Error('not used');
    },
  };
  return { provider, calls };
}

const models = (ids: string[]) => ids.map((id) => routable({ id, model: id, namespace: id }));

function options(provider: Provider, overrides: Partial<AttemptOptions> & Pick<AttemptOptions, 'breakers' | 'attempts'>): AttemptOptions {
  return {
    prepared: preparedCompletion(),
    maxSameModelRetries: 2,
    maxSwitches: 2,
    registry: { resolve: () => ({ provider, apiKey: 'k', baseUrl: 'http://x' }) },
    signal: new AbortController().signal,
    timeouts: { firstByteMs: 1000, callMs: 5000 },
    budget: new RetryBudget({ ratio: 0.2, minRetries: 10 }),
    deadline: Date.now() + 60_000,
    logger,
    sleep: async () => undefined,
    ...overrides,
  };
}

const call = async ({ provider, ctx, request }: AttemptCall) => {
  const result = await provider.chat(request, ctx);
  return { value: result, usage: result.usage };
};

describe('the attempt runner with shared circuit breakers', () => {
  it('retries a request whose first call failed on the next model, though every breaker is open', async () => {
    const b = await breakers();
    await open(b, ['a', 'b']);
    const { provider, calls } = upstream({ a: ['fail'] });
    const success = await runAttempts(options(provider, { breakers: b, attempts: models(['a', 'b']) }), call);
    expect(calls).toEqual(['a', 'b']);
    expect(success.model.id).toBe('b');
  });

  it('retries the same model when it is the only one, though its breaker is open', async () => {
    const b = await breakers();
    await open(b, ['a']);
    const { provider, calls } = upstream({ a: ['fail'] });
    const success = await runAttempts(options(provider, { breakers: b, attempts: models(['a']) }), call);
    expect(calls).toEqual(['a', 'a']);
    expect(success.model.id).toBe('a');
  });

  it('gives models that keep failing two calls per request, no more, once their breakers are open', async () => {
    const b = await breakers();
    await open(b, ['a', 'b', 'c']);
    const several = upstream({}, ['a', 'b', 'c']);
    await expect(runAttempts(options(several.provider, { breakers: b, attempts: models(['a', 'b', 'c']) }), call)).rejects.toBeInstanceOf(AttemptsExhausted);
    expect(several.calls).toEqual(['a', 'b']);
    const single = upstream({}, ['a']);
    await expect(runAttempts(options(single.provider, { breakers: b, attempts: models(['a']) }), call)).rejects.toBeInstanceOf(AttemptsExhausted);
    expect(single.calls).toEqual(['a', 'a']);
  });

  it('skips models whose breaker is open without counting a switch, so a healthy fifth model answers', async () => {
    const b = await breakers();
    await open(b, ['a', 'b', 'c', 'd']);
    const { provider, calls } = upstream({}, ['a', 'b', 'c', 'd']);
    const success = await runAttempts(options(provider, { breakers: b, attempts: models(['a', 'b', 'c', 'd', 'e']), maxSwitches: 0 }), call);
    expect(calls).toEqual(['e']);
    expect(success.notes).toContain('Skipped while cooling down after repeated upstream failures: a, b, c, d.');
  });

  it('counts the models called against max switches: past the open ones to the next closed model, then no further', async () => {
    const b = await breakers();
    await open(b, ['b', 'c']);
    const { provider, calls } = upstream({}, ['a', 'b', 'c', 'd']);
    const opts = options(provider, { breakers: b, attempts: models(['a', 'b', 'c', 'd', 'e']), maxSwitches: 1, maxSameModelRetries: 0 });
    await expect(runAttempts(opts, call)).rejects.toBeInstanceOf(AttemptsExhausted);
    expect(calls).toEqual(['a', 'd']);
  });

  it('leaves a model whose probe failed for the next one, and its breaker opens again', async () => {
    const b = await breakers({ cooldownMs: 200, maxCooldownMs: 1000 });
    await open(b, ['a']);
    await sleep(300);
    const { provider, calls } = upstream({ a: ['fail'] });
    const success = await runAttempts(options(provider, { breakers: b, attempts: models(['a', 'b']) }), call);
    expect(calls).toEqual(['a', 'b']);
    expect(success.model.id).toBe('b');
    await eventually(() => (b.isOpen('a') ? true : null));
  });
});
