import type { CompletionFailure, FinishedAnswer, StreamEvent } from './completion';

/** What an API's edge does with the domain events of one request (it writes its own wire format). */
export interface CompletionSink {
  event(event: StreamEvent): void;
  done(finished: FinishedAnswer): void;
  error(failure: CompletionFailure): void;
}
