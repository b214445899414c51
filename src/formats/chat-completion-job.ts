import type { AsyncJobRecord, JobStatus } from '../domain/async-job';
import { errorBodyOf } from '../errors/api-error';
import type { ChatCompletionJob } from '../schemas/chat-completion-job';
import { chatCompletionBody } from './openai-chat';

/**
 * An async job in this API's wire format. Its `response.body` is what the synchronous call would have
 * answered (the same formatter): a `chat.completion`, or the error body.
 */
export function chatCompletionJobBody(record: AsyncJobRecord, status: JobStatus = record.status): ChatCompletionJob {
  const { outcome, webhook } = record;
  return {
    id: record.id,
    object: 'chat.completion.job',
    status,
    created_at: record.createdAt,
    finished_at: record.finishedAt,
    model: record.model,
    response: outcome
      ? 'result' in outcome
        ? { status_code: 200, request_id: record.id, body: chatCompletionBody(outcome.result) }
        : { status_code: outcome.failure.status, request_id: record.id, body: errorBodyOf(outcome.failure) }
      : null,
    webhook:
      record.webhookUrl === null
        ? null
        : {
            url: record.webhookUrl,
            status: webhook?.status ?? 'pending',
            attempts: webhook?.attempts ?? 0,
            last_status_code: webhook?.lastStatusCode ?? null,
            last_error: webhook?.lastError ?? null,
            delivered_at: webhook?.deliveredAt ?? null,
          },
  };
}
