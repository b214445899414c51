import type { CompletionSink } from '../../completions/completion-gateway';
import type { WireSink } from '../../completions/wire-sink';
import type { ChunkChoice, Usage } from '../../domain/chat';
import type { CompletionFailure, CompletionResult, ResultChoice, StepEvent } from '../../domain/completion';
import { errorBodyOf } from '../../errors/api-error';
import type { CompletionMetadata, CompletionResponse } from '../../schemas/chat-completions';

/** OpenAI's chat-completions wire format of a completion's domain results and events. */

export function metadataOf(result: CompletionResult): CompletionMetadata {
  const { model } = result;
  return {
    app_id: result.appId,
    model: { model: model.model, namespace: model.namespace, provider: model.provider, owner: model.owner, at: model.at },
    costs: result.costs,
    cost_savings: result.savings,
    generated_artifacts: { items: result.artifacts },
    search_results: { items: result.searchResults },
    latency: result.latencyMs,
    labels: result.labels,
    error: result.error ?? '',
    scores: result.scores,
    score: result.score,
    temperature: result.temperature ?? null,
    max_tokens: result.maxTokens ?? null,
    status_code: result.statusCode,
    retries: result.retries,
    extra: result.plugins.length > 0 ? { plugins: result.plugins } : {},
    warning: result.warnings.join(' '),
  };
}

function wireChoice(choice: ResultChoice): CompletionResponse['choices'][number] {
  const { annotations, ...message } = choice.message;
  return { index: choice.index, message: annotations && annotations.length > 0 ? { ...message, annotations } : message, finish_reason: choice.finish_reason, logprobs: null };
}

export function chatCompletionBody(result: CompletionResult): CompletionResponse {
  return {
    id: result.requestId,
    object: 'chat.completion',
    model: result.model.model,
    created: result.created,
    choices: result.choices.map(wireChoice),
    usage: result.usage,
    metadata: metadataOf(result),
  };
}

export interface ChunkIdentity {
  requestId: string;
  /** Seconds since the epoch. */
  created: number;
}

function chunk(identity: ChunkIdentity, model: string, fields: { choices: unknown[]; usage?: Usage; metadata?: CompletionMetadata; step?: StepEvent }): string {
  return JSON.stringify({ id: identity.requestId, object: 'chat.completion.chunk', created: identity.created, model, ...fields });
}

/**
 * As OpenAI does, the first delta of each choice names the role: clients such as the OpenAI SDK's
 * stream helper refuse a choice without one.
 */
function withRoles(choices: ChunkChoice[], opened: Set<number>): unknown[] {
  return choices.map((choice) => {
    const delta = opened.has(choice.index) ? choice.delta : { role: 'assistant' as const, ...choice.delta };
    opened.add(choice.index);
    return { index: choice.index, delta, finish_reason: choice.finish_reason, logprobs: null };
  });
}

/**
 * A completion written as OpenAI's chat completion: one JSON body, or `chat.completion.chunk` events
 * (steps as chunks without choices, which clients ignore), a last chunk with usage and metadata, then
 * `[DONE]`. An error after the stream started is one final `data: {"error": ...}` event.
 */
export function openAiChatSink(wire: WireSink, identity: ChunkIdentity, { stream }: { stream: boolean }): CompletionSink {
  const opened = new Set<number>();
  let model = '';
  return {
    event: (event) => {
      if (!stream) return;
      if (event.type === 'delta') {
        model = event.model;
        wire.chunk(chunk(identity, model, { choices: withRoles(event.choices, opened) }));
      } else wire.chunk(chunk(identity, model, { choices: [], step: event.step }));
    },
    done: (result) => {
      if (!stream) return wire.done(chatCompletionBody(result));
      wire.chunk(chunk(identity, result.model.model, { choices: [], usage: result.usage, metadata: metadataOf(result) }));
      wire.done(undefined);
    },
    error: (failure) => wire.error({ status: failure.status, body: errorBodyOf(failure), headers: failure.headers }),
  };
}

/** A stored response in this API's wire format, for `GET /v1/logs`; rows written before results were stored this way pass as they are. */
export function chatLogResponse(stored: unknown): unknown {
  if (stored === null || typeof stored !== 'object') return stored;
  if ('result' in stored) return chatCompletionBody((stored as { result: CompletionResult }).result);
  if ('failure' in stored) {
    const { failure, partial } = stored as { failure: CompletionFailure; partial?: CompletionResult };
    return partial ? { ...chatCompletionBody(partial), error: errorBodyOf(failure).error } : errorBodyOf(failure);
  }
  return stored;
}
