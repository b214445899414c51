import type { CompletionSink } from '../domain/completion-sink';
import { SerialisedBody, type WireSink } from './wire-sink';
import type { ChunkChoice, Usage } from '../domain/chat';
import type { CompletionAnswer, CompletionFailure, CompletionResult, FinishedAnswer, ResultChoice } from '../domain/completion';
import { errorBodyOf } from '../errors/api-error';
import type { CompletionResponse } from '../schemas/chat-completions';
import { metadataOf, withMetadata, type MetadataPlacement } from './completion-metadata';

/** OpenAI's chat-completions wire format of a completion's domain results and events (the HTTP edge's, and the batch lines', webhooks' and log views'). */

function wireChoice(choice: ResultChoice): CompletionResponse['choices'][number] {
  const { annotations, ...message } = choice.message;
  return {
    index: choice.index,
    message: annotations && annotations.length > 0 ? { ...message, annotations } : message,
    finish_reason: choice.finish_reason,
    logprobs: null,
  };
}

/**
 * The usage as OpenAI's: reasoning tokens (part of `completion_tokens`) under `completion_tokens_details`.
 * An answer without them (most) is written as the domain has it, with nothing made.
 */
export function chatUsageOf(usage: Usage): CompletionResponse['usage'] {
  if (usage.reasoning_tokens === undefined) return usage;
  const { prompt_tokens, completion_tokens, total_tokens, reasoning_tokens } = usage;
  return { prompt_tokens, completion_tokens, total_tokens, completion_tokens_details: { reasoning_tokens } };
}

/** The body without its metadata: the metadata comes last, as an object or as JSON text already made. */
function answerBody(answer: CompletionAnswer): Omit<CompletionResponse, 'metadata'> {
  return {
    id: answer.requestId,
    object: 'chat.completion',
    model: answer.model.model,
    created: answer.created,
    choices: answer.choices.map(wireChoice),
    usage: chatUsageOf(answer.usage),
  };
}

/** A finished completion as OpenAI's chat completion body (batch lines, async jobs, log views). */
export function chatCompletionBody(result: CompletionResult): CompletionResponse {
  return { ...answerBody(result), metadata: metadataOf(result) };
}

/** The same body as JSON text, from a live answer: its metadata is written as the worker serialised it, where the request asked. */
export function chatCompletionJson({ answer, metadata }: FinishedAnswer, placement: MetadataPlacement = 'metadata'): string {
  return withMetadata(JSON.stringify(answerBody(answer)), placement, metadata);
}

export interface ChunkIdentity {
  requestId: string;
  /** Seconds since the epoch. */
  created: number;
}

function chunk(identity: ChunkIdentity, model: string, fields: { choices: unknown[]; usage?: CompletionResponse['usage'] }): string {
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
  /** Where the metadata goes (`x-switchyard-metadata`); the spec's `metadata` by default. */
  placement?: MetadataPlacement;
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
export function openAiChatSink(
  wire: WireSink,
  identity: ChunkIdentity,
  { stream, includeUsage = false, placement = 'metadata' }: ChatStreamOptions,
): CompletionSink {
  const opened = new Set<number>();
  let model = '';
  /** Choices that finished, held back until the answer's metadata is known. */
  const finishedChoices: unknown[] = [];
  return {
    event: (event) => {
      if (!stream) return;
      if (event.type === 'step') return wire.comment(`step ${JSON.stringify(event.step)}`);
      model = event.model;
      // One pass, and an array only for a chunk that goes out: every delta of a stream comes this way.
      let going: unknown[] | null = null;
      for (const choice of event.choices) {
        const wired = wireDelta(choice, opened);
        if ((choice.finish_reason ?? null) !== null) finishedChoices.push(wired);
        else (going ??= []).push(wired);
      }
      if (going) wire.chunk(chunk(identity, model, { choices: going }));
    },
    done: (finished) => {
      if (!stream) return wire.done(SerialisedBody.ofText(chatCompletionJson(finished, placement)));
      const { answer, metadata } = finished;
      const closing = finishedChoices.length > 0 ? finishedChoices : [{ index: 0, delta: {}, finish_reason: null, logprobs: null }];
      // Exactly one chunk carries the usage: the usage chunk when asked for, else the closing one.
      const usage = chatUsageOf(answer.usage);
      const closingChunk = chunk(identity, answer.model.model, includeUsage ? { choices: closing } : { choices: closing, usage });
      wire.chunk(withMetadata(closingChunk, placement, metadata));
      if (includeUsage) wire.chunk(chunk(identity, answer.model.model, { choices: [], usage }));
      wire.done(undefined);
    },
    error: (failure) => {
      // Choices that had finished before the failure are still the client's.
      if (stream && finishedChoices.length > 0) wire.chunk(chunk(identity, model, { choices: finishedChoices.splice(0) }));
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
