import { Agent, request as undiciRequest } from 'undici';
import { kindForStatus, UpstreamError } from '../errors/upstream-error';
import type { HttpClient, HttpRequest, HttpResponse } from './http-client';
import { Deadline } from './deadline';

/** Largest body read from a backend unless the call says otherwise, in bytes. */
export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
/** Longest part of an error body kept for the logs. */
const MAX_ERROR_BODY = 2000;

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The part of a fetch Response that reading needs (Node's global fetch and the undici package's alike). */
export interface ReadableResponse {
  headers: { get(name: string): string | null };
  body: (AsyncIterable<Uint8Array> & { cancel(): Promise<void> }) | null;
}

/** Reads a body up to `maxBytes`; a longer one is refused rather than held in memory. */
export async function readLimited(response: ReadableResponse, { maxBytes, service }: { maxBytes: number; service: string }): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new UpstreamError({
      kind: 'invalid_response',
      provider: service,
      message: `${service} answered ${declared} bytes, more than the ${maxBytes} allowed`,
    });
  }
  if (!response.body) return Buffer.alloc(0);
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      throw new UpstreamError({ kind: 'invalid_response', provider: service, message: `${service} answered more than the ${maxBytes} bytes allowed` });
    }
    // A view, not a copy: the chunk is ours once read (undici's are Buffers already).
    parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size);
}

/** A fetch failure as a UpstreamError: our timeout, the caller's abort, or a broken connection. */
export function transportFailure(err: unknown, { service, timedOut, aborted }: { service: string; timedOut: boolean; aborted: boolean }): UpstreamError {
  if (err instanceof UpstreamError) return err;
  if (timedOut) return new UpstreamError({ kind: 'timeout', provider: service, message: `${service} did not answer in time` });
  if (aborted) return new UpstreamError({ kind: 'aborted', provider: service, message: `the call to ${service} was cancelled` });
  const cause = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
  return new UpstreamError({ kind: 'connection', provider: service, message: `${service} could not be reached: ${cause}` });
}

export function toResponse(
  status: number,
  { url, headers, body }: { url: string; headers: ReadableResponse['headers']; body: Buffer },
  service: string,
): HttpResponse {
  return {
    status,
    url,
    headers: { get: (name) => headers.get(name) },
    body,
    text: () => body.toString('utf8'),
    json: () => {
      try {
        return JSON.parse(body.toString('utf8')) as unknown;
      } catch {
        throw new UpstreamError({ kind: 'invalid_response', provider: service, message: `${service} sent a body that is not JSON`, status });
      }
    },
  };
}

export function statusError(response: HttpResponse, service: string): UpstreamError {
  const text = response.text();
  return new UpstreamError({
    kind: kindForStatus(response.status),
    provider: service,
    status: response.status,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
    message: `${service} answered HTTP ${response.status}`,
    upstreamBody: text.slice(0, MAX_ERROR_BODY),
  });
}

/** Kept-alive connections to the configured backends (one pool per origin). */
const backendAgent = new Agent({ keepAliveTimeout: 10_000, connections: 512 });

/** Headers of an undici response, read like fetch's. */
function headerReader(headers: Record<string, string | string[] | undefined>): ReadableResponse['headers'] {
  return {
    get: (name) => {
      const value = headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : (value ?? null);
    },
  };
}

/**
 * One call through undici's `request`: a fraction of the CPU of Node's global fetch per call (the
 * plugin benchmark's worker profile), which matters with several plugin calls per completion.
 * Multipart bodies (FormData) still go through fetch, which encodes them.
 */
async function send(
  request: HttpRequest,
  signal: AbortSignal,
): Promise<{ status: number; url: string; headers: ReadableResponse['headers']; read: (maxBytes: number) => Promise<Buffer> }> {
  const { body } = request;
  if (body instanceof FormData) {
    const response = await fetch(request.url, { method: request.method ?? 'POST', headers: request.headers, body, signal, redirect: 'manual' });
    return {
      status: response.status,
      url: request.url,
      headers: response.headers,
      read: (maxBytes) => readLimited(response, { maxBytes, service: request.service }),
    };
  }
  const response = await undiciRequest(request.url, { method: request.method ?? 'GET', headers: request.headers, body, signal, dispatcher: backendAgent });
  const headers = headerReader(response.headers);
  // A body left early (too large, aborted) may still emit its error: reading reports it, this only keeps it from being unhandled.
  response.body.on('error', () => undefined);
  // dump() ends the body without an error event (destroy() would emit one nobody listens to).
  const stream = Object.assign(response.body, { cancel: () => response.body.dump({ limit: 0 }).catch(() => undefined) });
  return {
    status: response.statusCode,
    url: request.url,
    headers,
    read: (maxBytes) => readLimited({ headers, body: stream }, { maxBytes, service: request.service }),
  };
}

/**
 * The client for operator-configured backends (the base URLs in the environment): a whole-call
 * timeout, a body size limit, and failures as UpstreamError. Redirects are not followed: a backend's
 * key headers (`x-api-key`, `x-subscription-token`) must not travel to another origin, and a
 * configured base URL that redirects is a configuration to fix. URLs that come from a request or a
 * Space must go through the SSRF-safe client instead.
 */
export const backendClient: HttpClient = async (request: HttpRequest) => {
  const { service } = request;
  const limit = new Deadline(request.signal, { callMs: request.timeoutMs });
  try {
    const sent = await send(request, limit.signal);
    const body = await sent.read(request.maxBytes ?? DEFAULT_MAX_BYTES);
    const result = toResponse(sent.status, { url: sent.url, headers: sent.headers, body }, service);
    if ((sent.status < 200 || sent.status >= 300) && !request.acceptErrorStatus) throw statusError(result, service);
    return result;
  } catch (err) {
    throw transportFailure(err, { service, timedOut: limit.timedOut, aborted: request.signal.aborted });
  } finally {
    limit.clear();
  }
};
