/**
 * The one shape of outbound HTTP the plugins use. Two implementations share it:
 * - the backend client, for the base URLs an operator configured (SearXNG, Brave, an Images API, a
 *   Mastodon instance named in a Space's settings is NOT one of them: see below);
 * - the SSRF-safe client (`safe-fetch.ts`), for every URL that comes from a request, a file, a search
 *   result or a Space's settings: DNS resolved, private/loopback/link-local/metadata addresses refused,
 *   each redirect re-checked, size and time limits.
 * Both reject with `UpstreamError` (kind and status as for model providers), naming `service`.
 */
export interface HttpRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** A string (sent as is), a Buffer, or FormData (multipart, e.g. audio uploads). */
  body?: string | Buffer | FormData;
  signal: AbortSignal;
  /** Longest whole call, in ms. */
  timeoutMs: number;
  /** Largest response body read, in bytes; a longer one fails with `invalid_response`. */
  maxBytes?: number;
  /** Who is called, for errors and logs (`searxng`, `brave`, `mastodon`, `page`, ...). */
  service: string;
  /** A non-2xx status is returned instead of thrown (default: thrown as UpstreamError). */
  acceptErrorStatus?: boolean;
}

export interface HttpResponse {
  status: number;
  /** The URL finally answered (after redirects). */
  url: string;
  headers: { get(name: string): string | null };
  body: Buffer;
  text(): string;
  /** Parses the body; a body that is not JSON throws UpstreamError `invalid_response`. */
  json(): unknown;
}

export type HttpClient = (request: HttpRequest) => Promise<HttpResponse>;
