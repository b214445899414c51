import { costOf, ZERO_COSTS } from '../accounting/costs';
import type { CompletionFailure, CompletionResult, StoredAnswer, StoredCall, StoredLog, StoredReport } from '../domain/completion';
import type { AttemptRecord } from './attempt-record';

/** A list left out when empty (JSON drops undefined): the reader gives it back empty. Most requests have no warnings, plugins or search results. */
const unlessEmpty = <T>(items: T[]): T[] | undefined => (items.length > 0 ? items : undefined);

/** What a log keeps of a result besides its answer: the figures and the routing report (not the request's id or `created`, which are the row's columns). */
function reportOf({ report: result }: CompletionResult): StoredReport {
  return {
    app_id: result.appId,
    costs: result.costs,
    savings: result.savings,
    latency_ms: result.latencyMs,
    retries: result.retries,
    warnings: unlessEmpty(result.warnings),
    error: result.error,
    labels: Object.keys(result.labels).length > 0 ? result.labels : undefined,
    scores: result.scores,
    score: result.score,
    temperature: result.temperature,
    max_tokens: result.maxTokens,
    search_results: unlessEmpty(result.searchResults),
    artifacts: unlessEmpty(result.artifacts),
    plugins: unlessEmpty(result.plugins),
    auto_tools: result.autoTools,
  };
}

function answerOf(result: CompletionResult): StoredAnswer {
  return { choices: result.choices, usage: result.usage, model: result.model, status: result.statusCode };
}

/** A request's only model call, as its own row keeps it (the model is the row's). */
export function storedCallOf(record: AttemptRecord): StoredCall {
  const costs = record.usage.total_tokens > 0 ? costOf(record.model, record.usage) : ZERO_COSTS;
  const error = record.error && { kind: record.error.kind, status: record.error.status ?? null, message: record.error.message };
  return {
    provider: record.model.provider,
    started_at: record.startedAt,
    latency_ms: record.latencyMs,
    status: record.statusCode,
    usage: record.usage,
    costs,
    error,
  };
}

/**
 * The log's stored response (version 2): the answer and its report, or the failure (with what was
 * answered before it), and the request's only model call when the log has no child rows.
 */
export function storedLogOf(
  ended: { result: CompletionResult } | { failure: CompletionFailure; partial?: CompletionResult },
  call: StoredCall | null,
): StoredLog {
  const answered = 'result' in ended ? ended.result : ended.partial;
  return {
    v: 2,
    answer: answered && answerOf(answered),
    report: answered && reportOf(answered),
    failure: 'failure' in ended ? ended.failure : undefined,
    call: call ?? undefined,
  };
}
