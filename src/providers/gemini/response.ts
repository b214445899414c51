import { createHash, randomUUID } from 'node:crypto';
import { sumUsage, withReasoningTokens, type ChatChoice, type ChatResult, type FinishReason, type ToolCall, type Usage } from '../../domain/chat';
import { UpstreamError } from '../../errors/upstream-error';
import type { GeminiCandidate, GeminiPart, GeminiResponse, GeminiUsageMetadata } from './wire';

const PROVIDER = 'gemini';

/** Finish reasons that mean Gemini withheld (part of) the answer. */
const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

/**
 * STOP → `stop`, or `tool_calls` when the candidate called functions (Gemini says STOP for both);
 * MAX_TOKENS → `length`; the safety family → `content_filter`; anything else (OTHER,
 * MALFORMED_FUNCTION_CALL, LANGUAGE, ...) → `stop`. Null while the candidate is unfinished.
 */
export function finishReasonOf(reason: string | undefined, calledTools: boolean): FinishReason | null {
  if (!reason) return null;
  if (reason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(reason)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

/**
 * Gemini bills thinking tokens (`thoughtsTokenCount`, Gemini 2.5+) as output without counting them
 * in `candidatesTokenCount`, so completion tokens are their sum, and the reasoning tokens the
 * thoughts; total = prompt + completion.
 */
export function usageOf(metadata: GeminiUsageMetadata | undefined): Usage {
  const thoughts = metadata?.thoughtsTokenCount;
  return withReasoningTokens(sumUsage(metadata?.promptTokenCount ?? 0, (metadata?.candidatesTokenCount ?? 0) + (thoughts ?? 0)), thoughts);
}

/**
 * Gemini rarely gives calls ids, but a tool result must be matched to its call later: ids are derived
 * from the response id, candidate and position, so a stream and a retry of it name calls alike, and
 * ids differ between responses. Gemini's own id wins when it sends one.
 */
export function toolCallId(call: { id?: string }, at: { responseId?: string; candidate: number; index: number }): string {
  if (call.id) return call.id;
  const seed = `${at.responseId ?? randomUUID()}:${at.candidate}:${at.index}`;
  return `call_${createHash('sha256').update(seed).digest('hex').slice(0, 24)}`;
}

/** Text of the answer's parts; thought summaries are not part of it. */
export function textOf(parts: GeminiPart[]): string {
  return parts
    .filter((part) => !part.thought && typeof part.text === 'string')
    .map((part) => part.text)
    .join('');
}

/** A prompt Gemini refused to answer at all (no candidates): the request's fault, not worth a retry. */
export function promptBlocked(response: GeminiResponse): UpstreamError | null {
  const reason = response.promptFeedback?.blockReason;
  if (!reason || (response.candidates?.length ?? 0) > 0) return null;
  return new UpstreamError({ kind: 'bad_request', provider: PROVIDER, message: `Gemini blocked the prompt (${reason}).` });
}

function choiceOf(candidate: GeminiCandidate, position: number, responseId: string | undefined): ChatChoice {
  const index = candidate.index ?? position;
  const parts = candidate.content?.parts ?? [];
  const toolCalls: ToolCall[] = parts
    .flatMap((part) => (part.functionCall ? [part.functionCall] : []))
    .map((call, callIndex) => ({
      id: toolCallId(call, { responseId, candidate: index, index: callIndex }),
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
    }));
  const text = textOf(parts);
  return {
    index,
    message: { role: 'assistant', content: text || null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
    finish_reason: finishReasonOf(candidate.finishReason, toolCalls.length > 0) ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
  };
}

/** A whole `generateContent` answer. Throws `bad_request` for a blocked prompt, `invalid_response` for an empty one. */
export function fromGeminiResponse(response: GeminiResponse, requestedModel: string): ChatResult {
  const blocked = promptBlocked(response);
  if (blocked) throw blocked;
  const candidates = response.candidates ?? [];
  if (candidates.length === 0) throw new UpstreamError({ kind: 'invalid_response', provider: PROVIDER, message: 'Gemini answered with no candidates.' });
  return {
    upstreamId: response.responseId ?? '',
    model: response.modelVersion ?? requestedModel,
    choices: candidates.map((candidate, position) => choiceOf(candidate, position, response.responseId)).sort((a, b) => a.index - b.index),
    usage: usageOf(response.usageMetadata),
  };
}
