import type { ApiErrorBody } from '../errors/api-error';

/**
 * Where an API's wire format is written: one HTTP response (JSON or server-sent events). An edge
 * formatter turns a completion's domain events into these calls; the idempotency layer records them.
 */
export interface WireSink {
  /** One SSE `data:` payload, serialised. */
  chunk(data: string): void;
  /** One SSE comment line (`: text`), which clients skip: progress for those who read it. */
  comment(text: string): void;
  /** The whole JSON body (or a SerialisedBody), or (streams) the end of the stream. */
  done(body: unknown): void;
  error(failure: { status: number; body: ApiErrorBody; headers?: Record<string, string> }): void;
}

/**
 * A body serialised once: its text goes out and is kept for a replay as it is. `value` is for a sink
 * that writes another shape of it (the accepted async job).
 */
export class SerialisedBody {
  private constructor(
    readonly text: string,
    readonly value: unknown,
  ) {}

  /** A value serialised here. */
  static of(value: unknown): SerialisedBody {
    return new SerialisedBody(JSON.stringify(value), value);
  }

  /** A body that is JSON text already (a completion written with its metadata as the worker made it); it has no `value`. */
  static ofText(text: string): SerialisedBody {
    return new SerialisedBody(text, undefined);
  }
}
