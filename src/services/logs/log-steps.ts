import type { Log } from '../../generated/prisma/client';
import type { StoredCall } from '../../domain/completion';
import { readStoredLog } from '../../schemas/stored-log';

/**
 * The call as the step the logs API showed when it had a child row of its own: the same figures,
 * the request's model, and the log's own id (there is no other row to point at).
 */
function callStep<R extends Log>(row: R, call: StoredCall): R {
  return {
    ...row,
    parent_id: row.id,
    conversation_id: null,
    parent_request_id: null,
    timestamp: BigInt(call.started_at),
    status_code: call.status,
    latency: call.latency_ms,
    payload: { step: 'model', model: row.namespace, retry: 0, provider: call.provider },
    response: call.error ? { error: call.error } : { usage: call.usage },
    prompt: null,
    response_text: call.error?.message ?? '',
    prompt_tokens: call.usage.prompt_tokens,
    completion_tokens: call.usage.completion_tokens,
    total_tokens: call.usage.total_tokens,
    prompt_tokens_cost: call.costs.prompt_tokens,
    completion_tokens_cost: call.costs.completion_tokens,
    total_tokens_cost: call.costs.total_tokens,
    prompt_tokens_cost_savings: 0,
    completion_tokens_cost_savings: 0,
    total_tokens_cost_savings: 0,
    costs_incurred: call.costs.total_tokens > 0,
    good_answer: null,
    feedback: '',
    is_saved_for_later: false,
    comment_count: 0,
    labels: {},
    collections: null,
  };
}

/**
 * A request's steps, oldest first: its child rows, or, for a request answered by one model call (whose
 * log is one row, see docs/decisions.md), that call as one step built from the row's own figures.
 */
export function stepsOf<R extends Log>(row: R, children: R[]): R[] {
  if (children.length > 0 || row.parent_id !== null) return children;
  const call = readStoredLog(row.response)?.call;
  return call ? [callStep(row, call)] : children;
}
