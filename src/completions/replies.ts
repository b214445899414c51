import type { ApiErrorBody } from '../errors/api-error';
import type { CompletionResponse } from '../schemas/chat-completions';

/**
 * Messages a completion worker publishes to the API process that waits for the request.
 * `run` identifies one execution of the job: if a dead worker's job is run again, the API can tell.
 */
export type Reply =
  /** One SSE `data:` payload, already serialised (chat.completion.chunk JSON). */
  | { type: 'chunk'; requestId: string; run: string; data: string }
  /** The whole answer (non-streaming), or the end of a stream (its last data payloads are sent as chunks first). */
  | { type: 'done'; requestId: string; run: string; response?: CompletionResponse }
  /** A failure. Before any chunk it becomes an HTTP error; after, a final `data: {"error": ...}` event. */
  | { type: 'error'; requestId: string; run: string; status: number; body: ApiErrorBody; headers?: Record<string, string> };

export function replyChannel(prefix: string, instanceId: string): string {
  return `${prefix}:replies:${instanceId}`;
}

export function cancelChannel(prefix: string): string {
  return `${prefix}:cancel`;
}
