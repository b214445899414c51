import type { CompletionFailure, CompletionResult, StreamEvent } from '../domain/completion';

/**
 * Messages a completion worker publishes to the API process that waits for the request: domain
 * events, which the API's edge turns into its wire format. `run` identifies one execution of the job:
 * if a dead worker's job is run again, the API can tell.
 */
export type Reply = { requestId: string; run: string } & (
  | StreamEvent
  /** The answer; for a streamed answer, its closing figures (the text went out as deltas). */
  | { type: 'done'; result: CompletionResult }
  /** A failure. Before any delta it becomes an HTTP error; after, a final error event. */
  | { type: 'error'; failure: CompletionFailure }
);

export function cancelChannel(prefix: string): string {
  return `${prefix}:cancel`;
}
