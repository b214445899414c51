import { kindForStatus, UpstreamError, type UpstreamErrorKind } from '../../errors/upstream-error';
import { isRecord, type WireCompletion } from './wire';

/** Longest error payload kept for logs, in characters. */
const MAX_LOGGED = 2000;

/** The error object of a payload: `{error: {...}}`, `{error: "text"}` (xAI, some proxies) or vLLM's `{object: "error", ...}`. */
function errorObject(payload: WireCompletion): Record<string, unknown> | undefined {
  if (typeof payload.error === 'string') return { message: payload.error, code: (payload as Record<string, unknown>).code };
  if (isRecord(payload.error)) return payload.error;
  if (payload.object === 'error') return payload as Record<string, unknown>;
  return undefined;
}

/** A message from `message`, which Mistral sometimes sends as an object (pydantic details), or FastAPI's `detail`. */
function messageOf(error: Record<string, unknown>): string | undefined {
  const message = error.message ?? error.detail;
  if (typeof message === 'string') return message;
  return message === undefined || message === null ? undefined : JSON.stringify(message);
}

/** Reads an error body of any vendor in this family into a message (for `postUpstream`). */
export function errorBodyMessage(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (!isRecord(parsed)) return undefined;
    const error = errorObject(parsed) ?? parsed;
    return messageOf(error);
  } catch {
    return undefined;
  }
}

const KIND_PATTERNS: [RegExp, UpstreamErrorKind][] = [
  [/rate.?limit|too.?many|quota/i, 'rate_limited'],
  [/timeout|timed.?out/i, 'timeout'],
  [/auth|api.?key/i, 'authentication'],
  [/permission|forbidden/i, 'permission'],
  [/not.?found/i, 'not_found'],
  [/invalid.?request|bad.?request|validation|context.?length/i, 'bad_request'],
];

/** The kind of an in-body error: from an HTTP status in `code`/`status` (OpenRouter) when there is one, else from its words. */
function kindOf(error: Record<string, unknown>): UpstreamErrorKind {
  const status = [error.code, error.status].map(Number).find((n) => Number.isInteger(n) && n >= 400 && n < 600);
  if (status !== undefined) return kindForStatus(status);
  const words = [error.type, error.code].filter((v) => typeof v === 'string').join(' ');
  // A failure while the model is generating is the vendor's, not the request's.
  return KIND_PATTERNS.find(([pattern]) => pattern.test(words))?.[1] ?? 'server_error';
}

function finishedWithError(payload: WireCompletion): boolean {
  return Array.isArray(payload.choices) && payload.choices.some((choice) => isRecord(choice) && choice.finish_reason === 'error');
}

/**
 * The UpstreamError an answer or stream event carries, or null for a normal payload. Vendors report
 * failures after the status line (OpenAI mid-stream, OpenRouter mid-generation) this way.
 */
export function errorInPayload(provider: string, payload: WireCompletion): UpstreamError | null {
  const error = errorObject(payload) ?? (finishedWithError(payload) ? { message: 'generation failed' } : undefined);
  if (!error) return null;
  // No `status`: the HTTP status was 2xx; the error came in the body.
  return new UpstreamError({
    kind: kindOf(error),
    provider,
    message: `${provider} reported an error: ${messageOf(error) ?? 'no message'}`,
    upstreamBody: JSON.stringify(payload).slice(0, MAX_LOGGED),
  });
}
