import type { CompletionFailure, CompletionResult, StreamEvent } from './completion';

/** What an API's edge does with the domain events of one request (it writes its own wire format). */
export interface CompletionSink {
  event(event: StreamEvent): void;
  done(result: CompletionResult): void;
  error(failure: CompletionFailure): void;
}
