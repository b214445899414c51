import type { CompletionSink } from '../domain/completion-sink';
import type { WireSink } from './wire-sink';
import type { ChunkChoice, Usage } from '../domain/chat';
import type { CompletionFailure, CompletionResult, ResultChoice } from '../domain/completion';
import { errorBodyOf } from '../errors/api-error';
import type { CompletionMetadata, CompletionResponse } from '../schemas/chat-completions';

/** OpenAI's chat-completions wire format of a completion's domain results and events (the HTTP edge's, and the batch lines', webhooks' and log views'). */

/** `metadata.extra`: the plugins that ran (or not) and, with auto_tools, what it considered, picked and skipped. */
function extraOf(result: CompletionResult): CompletionMetadata['extra'] {
  const { plugins, autoTools } = result;
  if (autoTools) return plugins.length > 0 ? { plugins, auto_tools: autoTools } : { auto_tools: autoTools };
  return plugins.length > 0 ? { plugins } : {};
}

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
    extra: extraOf(result),
    warning: result.warnings.join(' '),
  };
}

function wireChoice(choice: ResultChoice): CompletionResponse['choices'][number] {
  const { annotations, ...message } = choice.message;
  return {
    index: choice.index,
    message: annotations && annotations.length > 0 ? { ...message, annotations } : message,
    finish_reason: choice.finish_reason,
    logprobs: null,
  };
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

function chunk(identity: ChunkIdentity, model: string, fields: { choices: unknown[]; usage?: Usage; metadata?: CompletionMetadata }): string {
  return JSON.stringify({ id: identity.requestId, object: 'chat.completion.chunk', created: identity.created, model, ...fields });
}

/**
 * A choice's delta as the wire shows it. As OpenAI does, the first delta of each choice names the
 * role: clients such as the OpenAI SDK's stream helper refuse a choice without one.
 */
function wireDelta(choice: ChunkChoice, opened: Set<number>): { index: number; delta: object; finish_reason: string | null; logprobs: null } {
  const delta = opened.has(choice.index) ? choice.delta : { role: 'assistant' as const, ...choice.delta };
  opened.add(choice.index);
  return { index: choice.index, delta, finish_reason: choice.finish_reason, logprobs: null };
}

/** What the client asked of a stream. */
export interface ChatStreamOptions {
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with empty `choices` and the usage, as OpenAI sends it. */
  includeUsage?: boolean;
}

/**
 * A completion written as OpenAI's chat completion: one JSON body, or `chat.completion.chunk` events
 * then `[DONE]`. Every chunk has at least one choice, so the common loop over `chunk.choices[0]` never
 * trips: a chunk with a `finish_reason` waits for the end of the answer and carries Switchyard's
 * `metadata`, and the `usage` unless the client asked for OpenAI's own last usage chunk (empty
 * `choices`) with `stream_options.include_usage`: then that chunk alone carries it. Steps (a plugin started or finished)
 * are SSE comments, `: step {...}`, which SSE clients skip. An error after the stream started is one
 * final `data: {"error": ...}` event.
 */
export function openAiChatSink(wire: WireSink, identity: ChunkIdentity, { stream, includeUsage = false }: ChatStreamOptions): CompletionSink {
  const opened = new Set<number>();
  let model = '';
  /** Choices that finished, held back until the answer's metadata is known. */
  const finished: unknown[] = [];
  return {
    event: (event) => {
      if (!stream) return;
      if (event.type === 'step') return wire.comment(`step ${JSON.stringify(event.step)}`);
      model = event.model;
      // One pass, and an array only for a chunk that goes out: every delta of a stream comes this way.
      let going: unknown[] | null = null;
      for (const choice of event.choices) {
        const wired = wireDelta(choice, opened);
        if ((choice.finish_reason ?? null) !== null) finished.push(wired);
        else (going ??= []).push(wired);
      }
      if (going) wire.chunk(chunk(identity, model, { choices: going }));
    },
    done: (result) => {
      if (!stream) return wire.done(chatCompletionBody(result));
      const closing = finished.length > 0 ? finished : [{ index: 0, delta: {}, finish_reason: null, logprobs: null }];
      // Exactly one chunk carries the usage: the usage chunk when asked for, else the closing one.
      wire.chunk(chunk(identity, result.model.model, { choices: closing, ...(includeUsage ? {} : { usage: result.usage }), metadata: metadataOf(result) }));
      if (includeUsage) wire.chunk(chunk(identity, result.model.model, { choices: [], usage: result.usage }));
      wire.done(undefined);
    },
    error: (failure) => {
      // Choices that had finished before the failure are still the client's.
      if (stream && finished.length > 0) wire.chunk(chunk(identity, model, { choices: finished.splice(0) }));
      wire.error({ status: failure.status, body: errorBodyOf(failure), headers: failure.headers });
    },
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
