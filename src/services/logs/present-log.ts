import type { Prisma } from '../../generated/prisma/client';
import type { LogCoreView, LogView } from '../../schemas/logs';
import type { LogCoreRow, LogRow } from '../../store/logs';
import { presentModel } from '../apps/present-model';
import { logResponseView } from './log-response';
import { stepOf } from './step-kind';
import { stepsOf } from './log-steps';

function objectOrEmpty(json: Prisma.JsonValue): Record<string, unknown> {
  return typeof json === 'object' && json !== null && !Array.isArray(json) ? json : {};
}

/** Every field of the contract's Log except `parent` and `children`, plus `labels` and `step`. */
export function presentLogCore(row: LogCoreRow): LogCoreView {
  return {
    id: row.id,
    conversation_id: row.conversation_id,
    parent_request_id: row.parent_request_id,
    parent_id: row.parent_id,
    app_id: row.app_id,
    idp_id: row.idp_id,
    // Stored in the worker's shape (schemas/stored-log.ts); shown in the wire format of the API the request came through.
    response: logResponseView(row),
    // Milliseconds since the epoch stay far below 2^53, so a JSON number is exact.
    timestamp: Number(row.timestamp),
    good_answer: row.good_answer,
    feedback: row.feedback,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    total_tokens: row.total_tokens,
    prompt_tokens_cost: row.prompt_tokens_cost,
    completion_tokens_cost: row.completion_tokens_cost,
    total_tokens_cost: row.total_tokens_cost,
    prompt_tokens_cost_savings: row.prompt_tokens_cost_savings,
    completion_tokens_cost_savings: row.completion_tokens_cost_savings,
    total_tokens_cost_savings: row.total_tokens_cost_savings,
    costs_incurred: row.costs_incurred,
    namespace: row.namespace,
    payload: row.payload,
    privacy_level: row.privacy_level,
    prompt: row.prompt,
    request_type: row.request_type,
    response_text: row.response_text,
    status_code: row.status_code,
    is_test: row.is_test,
    added_on: row.added_on ? row.added_on.toISOString() : null,
    // The column's -1 means "not measured" (older logs of failed requests, failed embeddings): shown as null, never negative.
    latency: row.latency < 0 ? null : row.latency,
    is_saved_for_later: row.is_saved_for_later,
    comment_count: row.comment_count,
    model: row.model ? presentModel(row.model) : null,
    collections: row.collections,
    labels: objectOrEmpty(row.labels),
    step: stepOf(row),
  };
}

/**
 * The Log; `children` is null unless they were loaded. A request answered by one model call has no
 * child row: its call is shown as its one step, as when it had one.
 */
export function presentLog(row: LogRow, children: LogCoreRow[] | null = null): LogView {
  return {
    ...presentLogCore(row),
    parent: row.parent ? presentLogCore(row.parent) : null,
    children: children ? stepsOf<LogCoreRow>(row, children).map(presentLogCore) : null,
  };
}
