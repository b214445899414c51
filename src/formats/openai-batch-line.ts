import { createHash } from 'node:crypto';
import type { CompletionFailure, CompletionResult } from '../domain/completion';
import { errorBodyOf } from '../errors/api-error';
import { chatCompletionBody } from './openai-chat';

/** How a batch line ended, in domain terms (what the worker stores). */
export type LineOutcome = { result: CompletionResult } | { failure: CompletionFailure };

/** OpenAI's message for a request the completion window closed on. */
export const BATCH_EXPIRED_MESSAGE = 'This request could not be executed before the completion window expired.';

/** `batch_req_` and 32 hex digits, stable for a line (a finaliser run twice writes the same ids). */
function lineId(batchId: string, line: number): string {
  return `batch_req_${createHash('sha256').update(`${batchId}:${line}`).digest('hex').slice(0, 32)}`;
}

export interface LineIdentity {
  batchId: string;
  line: number;
  customId: string;
}

/**
 * One line of a batch's output or error file, in OpenAI's shape: `response` holds the HTTP answer the
 * request would have had (the chat completion, or the error body with its status); `error` is set only
 * for a line that never ran (expired).
 */
export function batchOutputLine(identity: LineIdentity, ended: { requestId: string; outcome: LineOutcome } | 'expired'): string {
  const base = { id: lineId(identity.batchId, identity.line), custom_id: identity.customId };
  if (ended === 'expired') return JSON.stringify({ ...base, response: null, error: { code: 'batch_expired', message: BATCH_EXPIRED_MESSAGE } });
  const { requestId, outcome } = ended;
  const response =
    'result' in outcome
      ? { status_code: 200, request_id: requestId, body: chatCompletionBody(outcome.result) }
      : { status_code: outcome.failure.status, request_id: requestId, body: errorBodyOf(outcome.failure) };
  return JSON.stringify({ ...base, response, error: null });
}
