import { kindForStatus, UpstreamError } from '../../errors/upstream-error';
import type { GeminiErrorBody } from './wire';

const PROVIDER = 'gemini';

/** Google's error body is `{"error": {...}}`, or (from some proxies and older streams) a one-item array of it. */
function errorOf(parsed: unknown): GeminiErrorBody['error'] | undefined {
  const body: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
  return typeof body === 'object' && body !== null ? (body as GeminiErrorBody).error : undefined;
}

function parseError(body: string): GeminiErrorBody['error'] | undefined {
  try {
    return errorOf(JSON.parse(body));
  } catch {
    return undefined;
  }
}

/** `error.message` of a Gemini error body, for `postUpstream`. */
export function geminiErrorMessage(body: string): string | undefined {
  const message = parseError(body)?.message;
  return typeof message === 'string' && message ? message : undefined;
}

/** `google.rpc.RetryInfo.retryDelay` ("19s", "3.700s") in ms. Gemini's 429s carry it instead of `Retry-After`. */
export function parseRetryDelay(delay: string | undefined): number | undefined {
  const seconds = delay ? /^(\d+(?:\.\d+)?)s$/.exec(delay)?.[1] : undefined;
  return seconds === undefined ? undefined : Math.round(Number(seconds) * 1000);
}

/**
 * Fixes what the status alone gets wrong for Gemini. A bad key is answered 400 INVALID_ARGUMENT with
 * reason `API_KEY_INVALID`: that becomes kind `authentication` (what it means), keeping the true status. A 429's retry hint
 * is read from `RetryInfo` when there is no `Retry-After` header.
 */
export function refineGeminiError(error: UpstreamError): UpstreamError {
  const body = error.upstreamBody ? parseError(error.upstreamBody) : undefined;
  if (!body) return error;
  const details = body.details ?? [];
  const invalidKey = details.some((detail) => detail.reason === 'API_KEY_INVALID');
  const retryAfterMs = error.retryAfterMs ?? parseRetryDelay(details.find((detail) => detail['@type']?.endsWith('google.rpc.RetryInfo'))?.retryDelay);
  if (!invalidKey && retryAfterMs === error.retryAfterMs) return error;
  return new UpstreamError({
    kind: invalidKey ? 'authentication' : error.kind,
    provider: error.provider,
    message: error.message,
    status: error.status,
    retryAfterMs,
    upstreamBody: error.upstreamBody,
  });
}

/**
 * An error sent inside a stream after the 200 (`data: {"error": {...}}`; `parsed` is `data` read as JSON). Its kind comes from the
 * code it carries; without one it counts as a server error, since the request was accepted.
 */
export function streamError(parsed: unknown, data: string): UpstreamError | null {
  const error = errorOf(parsed);
  if (!error) return null;
  return new UpstreamError({
    kind: typeof error.code === 'number' ? kindForStatus(error.code) : 'server_error',
    provider: PROVIDER,
    message: error.message || 'Gemini reported an error in the stream.',
    status: error.code,
    retryAfterMs: parseRetryDelay(error.details?.find((detail) => detail['@type']?.endsWith('google.rpc.RetryInfo'))?.retryDelay),
    upstreamBody: data.slice(0, 2000),
  });
}
