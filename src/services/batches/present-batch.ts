import type { BatchLineError, BatchView } from '../../schemas/batches';
import type { BatchRow } from '../../store/batches';

const seconds = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : null);

/** A stored batch as OpenAI's batch object. */
export function presentBatch(row: BatchRow): BatchView {
  return {
    id: row.id,
    object: 'batch',
    endpoint: row.endpoint,
    errors: row.errors ? { object: 'list', data: row.errors as BatchLineError[] } : null,
    input_file_id: row.input_file_id,
    completion_window: row.completion_window,
    status: row.status,
    output_file_id: row.output_file_id,
    error_file_id: row.error_file_id,
    created_at: seconds(row.created_at) ?? 0,
    in_progress_at: seconds(row.in_progress_at),
    expires_at: seconds(row.expires_at),
    finalizing_at: seconds(row.finalizing_at),
    completed_at: seconds(row.completed_at),
    failed_at: seconds(row.failed_at),
    expired_at: seconds(row.expired_at),
    cancelling_at: seconds(row.cancelling_at),
    cancelled_at: seconds(row.cancelled_at),
    request_counts: { total: row.total_count, completed: row.completed_count, failed: row.failed_count },
    metadata: (row.metadata as Record<string, string> | null) ?? null,
  };
}
