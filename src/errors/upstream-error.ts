/** Why an upstream call failed, in terms that decide what to do next. */
export type UpstreamErrorKind =
  | 'rate_limited'
  | 'server_error'
  | 'timeout'
  | 'connection'
  | 'stream_cut'
  | 'bad_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'invalid_response'
  | 'aborted';

const RETRYABLE: ReadonlySet<UpstreamErrorKind> = new Set(['rate_limited', 'server_error', 'timeout', 'connection', 'stream_cut']);

export interface UpstreamErrorInit {
  kind: UpstreamErrorKind;
  /** Who answered: a model provider, or a plugin's backend (`web-search`, `mastodon`, ...). */
  provider: string;
  message: string;
  /** The upstream HTTP status, when there was one. */
  status?: number;
  /** From `Retry-After` (or the provider's own hint), in ms. */
  retryAfterMs?: number;
  /** The upstream error body, for logs only: never echoed to clients. */
  upstreamBody?: string;
}

/**
 * The one error of a call to something upstream, shared by providers, net and plugins: the pipeline
 * retries, fails over or maps it to our status (errors/api-error.ts builds the response body).
 */
export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  readonly provider: string;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly upstreamBody: string | undefined;

  constructor(init: UpstreamErrorInit) {
    super(init.message);
    this.name = 'UpstreamError';
    this.kind = init.kind;
    this.provider = init.provider;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
    this.upstreamBody = init.upstreamBody;
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

/** Maps an upstream HTTP status to a kind; the same table for every provider. */
export function kindForStatus(status: number): UpstreamErrorKind {
  if (status === 429) return 'rate_limited';
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server_error';
  return 'bad_request';
}

/** `Retry-After` as seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
