import type { Model } from '../../src/generated/prisma/client';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import {
  callsTo,
  complete,
  completeStream,
  isolatedSpace,
  logsOf,
  nth,
  onlyLogOf,
  script,
  sseData,
  sseEvents,
  times,
  userMessage,
  type SpaceSetup,
} from '../helpers/completion-fixtures';
import { startSimulator, type Simulator } from '../simulator/server';

let sim: Simulator;
let h: CompletionsHarness;

beforeAll(async () => {
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim) });
});
afterAll(async () => {
  await h.close();
  await sim.close();
});
beforeEach(() => sim.reset());

const ask = { messages: userMessage('Where is the nearest station?') };
const OVERLOADED = { kind: 'status', status: 503 } as const;

/** The final chunk of a stream: the finished choice, usage and metadata. */
function finalChunk(text: string): { metadata: { retries: number; model: { model: string } } } {
  const last = sseEvents(text).at(-1) as { choices: { finish_reason: string | null }[]; metadata?: unknown } | undefined;
  expect(last?.choices[0]?.finish_reason).toBe('stop');
  return last as never;
}

/** The answering model first (quality 0.9), a runner-up (0.8) and a weak model (0.5) put in the failover chain. */
function threeModels(extra: Partial<SpaceSetup> = {}): SpaceSetup {
  return {
    models: [
      { name: 'first', quality: 0.9 },
      { name: 'runner-up', quality: 0.8 },
      { name: 'fallback', quality: 0.5 },
    ],
    chain: ['fallback'],
    ...extra,
  };
}

function counts(models: Record<string, Model>): Record<string, number> {
  return Object.fromEntries(Object.entries(models).map(([name, model]) => [name, callsTo(sim, model).length]));
}

describe('retries on the same model', () => {
  it('answers once after a 503 then an answer, with one retry and two child logs', async () => {
    const { tenant, models } = await isolatedSpace(h, threeModels());
    script(sim, models.first, [OVERLOADED]);
    const res = await complete(h, tenant, ask);
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('first');
    expect(res.body.metadata.retries).toBe(1);
    expect(counts(models)).toEqual({ first: 2, 'runner-up': 0, fallback: 0 });
    const { children } = await logsOf(h, res.body.id);
    expect(children.map((c) => [c.namespace, c.status_code])).toEqual([
      [models.first.namespace, 503],
      [models.first.namespace, 200],
    ]);
  });

  it('does the same for a stream, before its first chunk', async () => {
    const { tenant, models } = await isolatedSpace(h, threeModels());
    script(sim, models.first, [OVERLOADED]);
    const res = await completeStream(h, tenant, ask);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/event-stream/);
    expect(sseData(res.text).at(-1)).toBe('[DONE]');
    expect(finalChunk(res.text).metadata).toMatchObject({ retries: 1, model: { model: 'first' } });
    expect(counts(models)).toEqual({ first: 2, 'runner-up': 0, fallback: 0 });
    const id = sseEvents(res.text)[0]?.id as string;
    const { children } = await logsOf(h, id);
    expect(children.map((c) => c.status_code)).toEqual([503, 200]);
  });

  it('waits at least what Retry-After asks before calling again', async () => {
    const { tenant, models } = await isolatedSpace(h, threeModels());
    // One second is four times the first backoff step, so only the header explains a wait this long.
    script(sim, models.first, [{ kind: 'status', status: 429, retryAfterSeconds: 1 }]);
    const res = await complete(h, tenant, ask);
    expect(res.status).toBe(200);
    expect(res.body.metadata.retries).toBe(1);
    const calls = callsTo(sim, models.first);
    expect(nth(calls, 1).receivedAt - nth(calls, 0).receivedAt).toBeGreaterThanOrEqual(1000);
    const { children } = await logsOf(h, res.body.id);
    expect(children.map((c) => c.status_code)).toEqual([429, 200]);
    expect(Number(nth(children, 1).timestamp - nth(children, 0).timestamp)).toBeGreaterThanOrEqual(1000);
  });
});

describe('failover after the retries', () => {
  it('tries the failover chain first when it is switched on', async () => {
    const { tenant, models } = await isolatedSpace(h, threeModels({ update: { has_failover_chain: true } }));
    script(sim, models.first, times(3, OVERLOADED));
    const res = await complete(h, tenant, ask);
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('fallback');
    // Two retries (max_same_model_retries' default) of the first model, then the switch: three extra calls.
    expect(res.body.metadata.retries).toBe(3);
    expect(counts(models)).toEqual({ first: 3, 'runner-up': 0, fallback: 1 });
    const { children } = await logsOf(h, res.body.id);
    expect(children.map((c) => [c.model_id, c.status_code])).toEqual([
      [models.first.id, 503],
      [models.first.id, 503],
      [models.first.id, 503],
      [models.fallback.id, 200],
    ]);
  });

  it('takes the next ranked model when the chain is switched off, after max_same_model_retries', async () => {
    const { tenant, models } = await isolatedSpace(h, threeModels({ update: { has_failover_chain: false, policies: { max_same_model_retries: 1 } } }));
    script(sim, models.first, times(2, OVERLOADED));
    const res = await complete(h, tenant, ask);
    expect(res.status).toBe(200);
    expect(res.body.model).toBe('runner-up');
    expect(res.body.metadata.retries).toBe(2);
    expect(counts(models)).toEqual({ first: 2, 'runner-up': 1, fallback: 0 });
  });

  it('fails over a stream that fails before its first chunk', async () => {
    const { tenant, models } = await isolatedSpace(h, threeModels());
    script(sim, models.first, times(3, OVERLOADED));
    const res = await completeStream(h, tenant, ask);
    expect(res.status).toBe(200);
    expect(sseData(res.text).at(-1)).toBe('[DONE]');
    expect(finalChunk(res.text).metadata).toMatchObject({ retries: 3, model: { model: 'runner-up' } });
    expect(counts(models)).toEqual({ first: 3, 'runner-up': 1, fallback: 0 });
  });

  it('does not switch models when max_switch_model_retries is 0', async () => {
    const { tenant, models } = await isolatedSpace(h, threeModels({ update: { has_failover_chain: true, policies: { max_switch_model_retries: 0 } } }));
    script(sim, models.first, times(3, OVERLOADED));
    const res = await complete(h, tenant, ask);
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 'upstream_error', type: 'upstream_error' });
    expect(counts(models)).toEqual({ first: 3, 'runner-up': 0, fallback: 0 });
  });
});

describe('upstream refusals that retrying cannot fix', () => {
  const cases = [
    { status: 400, ours: 400, code: 'invalid_request' },
    { status: 401, ours: 502, code: 'upstream_error' },
    { status: 403, ours: 502, code: 'upstream_error' },
  ];

  it.each(cases)('answers upstream $status with our $ours at once, with no retry or failover', async ({ status, ours, code }) => {
    const { tenant, models } = await isolatedSpace(h, threeModels({ update: { has_failover_chain: true } }));
    script(sim, models.first, [{ kind: 'status', status }]);
    const res = await complete(h, tenant, ask);
    expect(res.status).toBe(ours);
    expect(res.body.error).toMatchObject({ code });
    expect(counts(models)).toEqual({ first: 1, 'runner-up': 0, fallback: 0 });
    const { parent, children } = await onlyLogOf(h, tenant);
    expect(parent.status_code).toBe(ours);
    expect(children.map((c) => c.status_code)).toEqual([status]);
  });

  it.each(cases)('answers a stream refused with $status with a JSON $ours, not SSE', async ({ status, ours, code }) => {
    const { tenant, models } = await isolatedSpace(h, threeModels());
    script(sim, models.first, [{ kind: 'status', status }]);
    const res = await completeStream(h, tenant, ask);
    expect(res.status).toBe(ours);
    expect(res.type).toMatch(/^application\/json/);
    expect(JSON.parse(res.text).error).toMatchObject({ code });
    expect(counts(models)).toEqual({ first: 1, 'runner-up': 0, fallback: 0 });
  });
});

describe('when every attempt fails', () => {
  const failingSpace = (namespace: string, policies: object = {}) =>
    isolatedSpace(h, {
      models: [
        { name: 'first', namespace, quality: 0.9 },
        { name: 'second', namespace, quality: 0.8 },
      ],
      update: { policies: { max_switch_model_retries: 1, ...policies } },
    });

  it('answers 502 with a JSON error, never 200', async () => {
    const { tenant } = await failingSpace('sim-503', { max_same_model_retries: 1 });
    const res = await complete(h, tenant, ask);
    expect(res.status).toBe(502);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: { message: expect.any(String), type: 'upstream_error', code: 'upstream_error', param: null } });
    // Two models, each called and retried once.
    expect(sim.requests).toHaveLength(4);
  });

  it('answers a stream that never started with a real 502 and a JSON body', async () => {
    const { tenant } = await failingSpace('sim-503', { max_same_model_retries: 1 });
    const res = await completeStream(h, tenant, ask);
    expect(res.status).toBe(502);
    expect(res.type).toMatch(/^application\/json/);
    expect(res.text).not.toContain('data:');
    expect(JSON.parse(res.text).error).toMatchObject({ code: 'upstream_error' });
    expect(sim.requests).toHaveLength(4);
  });

  it('answers 429 upstream_rate_limited when every model is rate limited', async () => {
    const { tenant } = await failingSpace('sim-429', { max_same_model_retries: 0 });
    const res = await complete(h, tenant, ask);
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'upstream_rate_limited', type: 'rate_limit_error' });
    expect(res.headers['retry-after']).toBe('1');
    expect(sim.requests).toHaveLength(2);
  });
});

describe('a stream cut after its first chunk', () => {
  it('ends the 200 stream with exactly one error event, no [DONE], and no failover', async () => {
    const { tenant, models } = await isolatedSpace(h, {
      models: [
        { name: 'first', namespace: 'sim-cut-2', quality: 0.9 },
        { name: 'second', quality: 0.8 },
      ],
      update: { has_failover_chain: false },
    });
    const res = await completeStream(h, tenant, ask);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/event-stream/);
    const data = sseData(res.text);
    expect(data).not.toContain('[DONE]');
    const events = sseEvents(res.text);
    const errors = events.filter((event) => 'error' in event);
    expect(errors).toHaveLength(1);
    expect(events.at(-1)).toBe(errors[0]);
    expect(errors[0]).toEqual({ error: expect.objectContaining({ code: 'upstream_error', type: 'upstream_error' }) });
    // What was streamed before the cut came from the first model: its two chunks' text (joined into one
    // delta when they reach the worker together).
    const streamed = events.flatMap((event) => (Array.isArray(event.choices) ? (event.choices as { delta?: { content?: string } }[]) : []));
    expect(streamed.map((choice) => choice.delta?.content ?? '').join('')).toBe('Echo: Where ');
    expect(counts(models)).toEqual({ first: 1, second: 0 });
  });
});
