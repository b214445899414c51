import { Counter, Histogram, Registry } from 'prom-client';

/**
 * What the configured floor's worker adds to the required floor's, each the leanest way the contract
 * allows: automatic routing among the Space's active models by its weights for cost, latency and
 * quality (each model's static figures, no prompt features), a circuit breaker per model, the
 * operators' metrics per job and per upstream call, and the request's costs and savings against the
 * benchmark model, for the log and the answer's metadata.
 */

interface Candidate {
  model: string;
  /** USD per million prompt and completion tokens. */
  prompt: number;
  completion: number;
  latencyMs: number;
  quality: number;
}

/** The bench Space's active models (tools/bench/environment.ts AUTO_ROUTED_MODELS) with list prices. */
const CANDIDATES: Candidate[] = [
  { model: 'gpt-4o-mini', prompt: 0.15, completion: 0.6, latencyMs: 900, quality: 0.72 },
  { model: 'gpt-4.1-mini', prompt: 0.4, completion: 1.6, latencyMs: 1000, quality: 0.78 },
  { model: 'gpt-4.1-nano', prompt: 0.1, completion: 0.4, latencyMs: 700, quality: 0.62 },
  { model: 'gpt-4o', prompt: 2.5, completion: 10, latencyMs: 1400, quality: 0.85 },
];
const BENCHMARK = CANDIDATES[3] as Candidate;
const WEIGHTS = { cost: 1, latency: 1, quality: 1 };
const MAX_PRICE = Math.max(...CANDIDATES.map((c) => c.prompt + c.completion));
const MAX_LATENCY = Math.max(...CANDIDATES.map((c) => c.latencyMs));

export interface Scored {
  model: string;
  score: number;
}

/** A breaker per model: open for 30 s after 5 failures in a row. */
const breakers = new Map<string, { failures: number; openUntil: number }>();

function breakerOpen(model: string, now: number): boolean {
  const state = breakers.get(model);
  return state !== undefined && state.openUntil > now;
}

export function recordCall(model: string, ok: boolean): void {
  const state = breakers.get(model) ?? { failures: 0, openUntil: 0 };
  state.failures = ok ? 0 : state.failures + 1;
  if (state.failures >= 5) state.openUntil = Date.now() + 30_000;
  breakers.set(model, state);
}

/** The named model, or the best-scored active model whose breaker is closed; with the ranking for the metadata. */
export function route(named: unknown): { model: string; candidates: Scored[] } {
  if (typeof named === 'string') return { model: named, candidates: [] };
  const now = Date.now();
  let best: Scored | null = null;
  const candidates: Scored[] = [];
  for (const c of CANDIDATES) {
    if (breakerOpen(c.model, now)) continue;
    const score = WEIGHTS.quality * c.quality - WEIGHTS.cost * ((c.prompt + c.completion) / MAX_PRICE) - WEIGHTS.latency * (c.latencyMs / MAX_LATENCY);
    const scored = { model: c.model, score };
    candidates.push(scored);
    if (best === null || score > best.score) best = scored;
  }
  return { model: best?.model ?? BENCHMARK.model, candidates };
}

export interface Costs {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

function costOf(c: Candidate, promptTokens: number, completionTokens: number): Costs {
  const prompt_tokens = (promptTokens * c.prompt) / 1e6;
  const completion_tokens = (completionTokens * c.completion) / 1e6;
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

/** What the call cost on `model`, and what it saved against the benchmark model. */
export function costsOf(model: string, promptTokens: number, completionTokens: number): { costs: Costs; savings: Costs } {
  const used = CANDIDATES.find((c) => c.model === model) ?? BENCHMARK;
  const costs = costOf(used, promptTokens, completionTokens);
  const reference = costOf(BENCHMARK, promptTokens, completionTokens);
  return {
    costs,
    savings: {
      prompt_tokens: reference.prompt_tokens - costs.prompt_tokens,
      completion_tokens: reference.completion_tokens - costs.completion_tokens,
      total_tokens: reference.total_tokens - costs.total_tokens,
    },
  };
}

const registry = new Registry();
const jobDuration = new Histogram({ name: 'job_duration_seconds', help: 'jobs', labelNames: ['queue', 'outcome'] as const, registers: [registry] });
const upstreamCalls = new Counter({ name: 'upstream_calls_total', help: 'calls', labelNames: ['provider', 'model', 'status'] as const, registers: [registry] });
const upstreamDuration = new Histogram({
  name: 'upstream_call_duration_seconds',
  help: 'calls',
  labelNames: ['provider', 'model'] as const,
  registers: [registry],
});
const completions = new Counter({ name: 'completions_total', help: 'completions', labelNames: ['app_id', 'status'] as const, registers: [registry] });
const tokens = new Counter({ name: 'tokens_total', help: 'tokens', labelNames: ['app_id', 'kind'] as const, registers: [registry] });
const costUsd = new Counter({ name: 'cost_usd_total', help: 'cost', labelNames: ['app_id'] as const, registers: [registry] });
const savingsUsd = new Counter({ name: 'savings_usd_total', help: 'savings', labelNames: ['app_id'] as const, registers: [registry] });

/** The metrics of one finished job: its upstream call, its tokens, costs and savings, and its duration. */
export function countJob(job: {
  appId: string;
  model: string;
  status: number;
  startedAt: bigint;
  callMs: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  saved: number;
}): void {
  const labels = { provider: 'openai', model: job.model };
  upstreamCalls.inc({ ...labels, status: String(job.status) });
  upstreamDuration.observe(labels, job.callMs / 1000);
  completions.inc({ app_id: job.appId, status: String(job.status) });
  tokens.inc({ app_id: job.appId, kind: 'prompt' }, job.promptTokens);
  tokens.inc({ app_id: job.appId, kind: 'completion' }, job.completionTokens);
  costUsd.inc({ app_id: job.appId }, job.cost);
  if (job.saved > 0) savingsUsd.inc({ app_id: job.appId }, job.saved);
  jobDuration.observe({ queue: 'completions', outcome: 'completed' }, Number(process.hrtime.bigint() - job.startedAt) / 1e9);
}
