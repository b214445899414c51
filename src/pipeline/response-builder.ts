import type { Costs } from '../accounting/costs';
import type { ChatChoice, ChatChunk, Usage } from '../domain/chat';
import type { RoutableModel } from '../domain/routable-model';
import type { CompletionMetadata, CompletionResponse } from '../schemas/chat-completions';
import type { ModelPlan } from './model-plan';

/** Everything the response and the log say about a finished request. */
export interface CompletionFacts {
  requestId: string;
  appId: string;
  /** Seconds since the epoch, as OpenAI's `created`. */
  created: number;
  model: RoutableModel;
  plan: ModelPlan;
  usage: Usage;
  costs: Costs;
  savings: Costs;
  /** Milliseconds the answering model took. */
  latencyMs: number;
  retries: number;
  statusCode: number;
  warnings: string[];
  error?: string;
  labels: Record<string, unknown>;
  temperature: number | undefined;
  maxTokens: number | undefined;
}

export function buildMetadata(facts: CompletionFacts): CompletionMetadata {
  const { model } = facts;
  return {
    app_id: facts.appId,
    model: { model: model.model, namespace: model.namespace, provider: model.provider, owner: model.owner, at: model.at },
    costs: facts.costs,
    cost_savings: facts.savings,
    generated_artifacts: { items: [] },
    search_results: { items: [] },
    latency: facts.latencyMs,
    labels: facts.labels,
    error: facts.error ?? '',
    scores: facts.plan.scores,
    score: facts.plan.attempts[0]?.id === model.id ? facts.plan.score : (facts.plan.scores.candidates.find((c) => c.model === model.model)?.score ?? 0),
    temperature: facts.temperature ?? null,
    max_tokens: facts.maxTokens ?? null,
    status_code: facts.statusCode,
    retries: facts.retries,
    extra: {},
    warning: facts.warnings.join(' '),
  };
}

export function buildResponse(facts: CompletionFacts, choices: ChatChoice[]): CompletionResponse {
  return {
    id: facts.requestId,
    object: 'chat.completion',
    model: facts.model.model,
    created: facts.created,
    choices: choices.map((choice) => ({ index: choice.index, message: choice.message, finish_reason: choice.finish_reason, logprobs: null })),
    usage: facts.usage,
    metadata: buildMetadata(facts),
  };
}

export interface ChunkIdentity {
  requestId: string;
  created: number;
  model: string;
}

/** One `chat.completion.chunk`, serialised for an SSE `data:` line. Usage is held for the last chunk. */
export function chunkData(identity: ChunkIdentity, chunk: ChatChunk): string {
  return JSON.stringify({
    id: identity.requestId,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    choices: chunk.choices.map((choice) => ({ index: choice.index, delta: choice.delta, finish_reason: choice.finish_reason, logprobs: null })),
  });
}

/** The last chunk: no choices, the usage and Switchyard's metadata. */
export function finalChunkData(identity: ChunkIdentity, usage: Usage, metadata: CompletionMetadata): string {
  return JSON.stringify({ id: identity.requestId, object: 'chat.completion.chunk', created: identity.created, model: identity.model, choices: [], usage, metadata });
}
