import type { ModelBreakers } from './circuit-breakers';
import type { RetryBudget } from './retry-budget';

/** The two limits of one upstream call, in ms. */
export interface UpstreamTimeouts {
  /** Until the first byte, and between two chunks of a stream. */
  firstByteMs: number;
  /** The whole call. */
  callMs: number;
}

/** What keeps failing upstreams cheap, shared by a worker process's requests. */
export interface Resilience {
  breakers: ModelBreakers;
  budget: RetryBudget;
  /** The service's timeouts; a Space's policies override each. */
  timeouts: UpstreamTimeouts;
}
