import request from 'supertest';
import type { Express } from 'express';
import { startWorkers, type RunningWorkers } from '../../src/app/start-workers';
import type { Config } from '../../src/config/schema';
import { startSimulator, type Simulator } from '../simulator/server';
import { createTestContext, type Tenant, type TestContext, type TestContextOptions } from './test-context';
import { uniqueSuffix } from './test-database';

export interface CompletionsHarness extends TestContext {
  workers: RunningWorkers;
}

/** Providers pointed at the simulator, each with a key, so their catalog models are available. */
export function simulatedProviders(sim: Simulator): Config['providers'] {
  const openAiLike = { apiKey: 'sim-key', baseUrl: sim.baseUrls.openai };
  return {
    openai: openAiLike,
    anthropic: { apiKey: 'sim-key', baseUrl: sim.baseUrls.anthropic },
    gemini: { apiKey: 'sim-key', baseUrl: sim.baseUrls.gemini },
    mistral: openAiLike,
    groq: openAiLike,
    together: openAiLike,
    deepseek: openAiLike,
    fireworks: openAiLike,
    xai: openAiLike,
    openrouter: openAiLike,
    ollama: { baseUrl: sim.baseUrls.openai },
    vllm: { baseUrl: sim.baseUrls.openai },
  };
}

/**
 * Circuit breakers that never open and a retry budget never spent, so a test file's sequence of
 * scripted failures stays independent of the tests before it; the tests of those two features set
 * their own values.
 */
export const UNBOUNDED_RESILIENCE: Partial<Config> = { breakerMinFailures: 1_000_000, retryBudgetMinRetries: 1_000_000 };

/**
 * The app and the workers in this process, as `SWITCHYARD_ROLE=all` runs them. Each harness gets its
 * own Redis prefix under the run's (so global teardown still removes it): test files run in parallel,
 * and a shared completions queue would let one file's workers take another's jobs, calling the other
 * file's providers.
 */
export function startCompletionsHarness(overrides: Partial<Config> = {}, options: TestContextOptions = {}): CompletionsHarness {
  const redisPrefix = `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`;
  const ctx = createTestContext({ upstreamTimeoutMs: 2000, redisPrefix, ...UNBOUNDED_RESILIENCE, ...overrides }, options);
  const workers = startWorkers(ctx.services);
  return {
    ...ctx,
    workers,
    close: async () => {
      await workers.close();
      await ctx.close();
    },
  };
}

/** Switches catalog models on (or off) in the tenant's Space, by name. */
export async function setModels(app: Express, tenant: Tenant, names: Record<string, boolean>): Promise<Record<string, string>> {
  const listing = await request(app).get(`/v1/apps/${tenant.app_id}/models`).set(tenant.auth).expect(200);
  const ids: Record<string, string> = {};
  for (const [name, active] of Object.entries(names)) {
    const model = (listing.body.base_model_settings as { id: string; model: string }[]).find((m) => m.model === name);
    if (!model) throw new Error(`no catalog model ${name}`);
    ids[name] = model.id;
    await request(app).put(`/v1/apps/${tenant.app_id}/models/${model.id}`).set(tenant.auth).send({ active }).expect(200);
  }
  return ids;
}

export interface SimulatedHarness {
  sim: Simulator;
  h: CompletionsHarness;
}

/**
 * For a test file: a provider simulator and a harness whose providers point at it, started before the
 * file's tests and closed after them. Read `sim` and `h` inside the tests (they are set by then).
 */
export function useSimulatedHarness(overrides: Partial<Config> = {}, options: TestContextOptions = {}): SimulatedHarness {
  const env = {} as SimulatedHarness;
  beforeAll(async () => {
    env.sim = await startSimulator();
    env.h = startCompletionsHarness({ providers: simulatedProviders(env.sim), ...overrides }, options);
  });
  afterAll(async () => {
    await env.h.close();
    await env.sim.close();
  });
  return env;
}
