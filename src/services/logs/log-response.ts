import type { CompletionResult, StoredResponse } from '../../domain/completion';
import { chatLogResponse } from '../../formats/openai-chat';
import type { Log } from '../../generated/prisma/client';
import { readStoredLog, type StoredLogView } from '../../schemas/stored-log';

/** The result a version 2 log keeps, with what its row's own columns hold (the request's id, `created`). */
function resultOf(view: StoredLogView, row: Pick<Log, 'id' | 'timestamp'>): CompletionResult | null {
  const { answer, report } = view;
  if (!answer || !report) return null;
  return {
    requestId: row.id,
    // `created` is the request's arrival in seconds; the row's timestamp is that arrival in ms.
    created: Math.floor(Number(row.timestamp) / 1000),
    model: answer.model,
    choices: answer.choices,
    usage: answer.usage,
    statusCode: answer.status,
    report: {
      appId: report.app_id,
      costs: report.costs,
      savings: report.savings,
      latencyMs: report.latency_ms,
      retries: report.retries,
      warnings: report.warnings,
      labels: report.labels,
      scores: report.scores,
      score: report.score,
      temperature: report.temperature,
      maxTokens: report.max_tokens,
      searchResults: report.search_results,
      artifacts: report.artifacts,
      plugins: report.plugins,
      autoTools: report.auto_tools,
      ...(report.error !== undefined ? { error: report.error } : {}),
    },
  };
}

/** A version 2 log as the domain's result or failure, which the wire formats write. */
function storedResponseOf(view: StoredLogView, row: Pick<Log, 'id' | 'timestamp'>): StoredResponse | null {
  const result = resultOf(view, row);
  if (view.failure) return result ? { failure: view.failure, partial: result } : { failure: view.failure };
  return result && { result };
}

/** A request's log (version 2) as the domain's result or failure; null for another version or a shape that does not read. */
export function storedResponseFor(row: Pick<Log, 'id' | 'timestamp' | 'response'>): StoredResponse | null {
  const view = readStoredLog(row.response);
  return view?.version === 2 ? storedResponseOf(view, row) : null;
}

/**
 * A log's `response` as the logs API shows it: a request's own log in the wire format of the API it came
 * through (OpenAI's chat completion), whichever version stored it; a step's as stored.
 */
export function logResponseView(row: Pick<Log, 'id' | 'timestamp' | 'parent_id' | 'request_type' | 'response'>): unknown {
  if (row.parent_id !== null || row.request_type !== 'chat_completions') return row.response;
  const view = readStoredLog(row.response);
  // Versions 0 and 1 are shown exactly as they were before version 2 existed.
  if (view?.version !== 2) return chatLogResponse(row.response);
  const stored = storedResponseOf(view, row);
  return stored ? chatLogResponse(stored) : row.response;
}
