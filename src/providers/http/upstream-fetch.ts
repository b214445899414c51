import type { ProviderContext } from '../types';
import { kindForStatus, parseRetryAfter, UpstreamError } from '../../errors/upstream-error';
import { Deadline } from '../../net/deadline';
import { httpPost, type UpstreamHttpResponse } from './http-post';

export interface UpstreamPost {
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  ctx: ProviderContext;
  /** Reads the provider's error body into a message; the default takes OpenAI's `error.message`. */
  errorMessage?: (body: string) => string | undefined;
}

export interface UpstreamResponse {
  response: UpstreamHttpResponse;
  deadline: Deadline;
}

/** Longest upstream error body kept for logs, in characters. */
const MAX_ERROR_BODY = 2000;

function openAiStyleMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
    return typeof parsed.message === 'string' ? parsed.message : undefined;
  } catch {
    return undefined;
  }
}

/** Turns a thrown request or body-read error into a UpstreamError. */
export function transportError(provider: string, err: unknown, { deadline, ctx }: { deadline: Deadline; ctx: ProviderContext }): UpstreamError {
  if (err instanceof UpstreamError) return err;
  if (deadline.timedOut) return new UpstreamError({ kind: 'timeout', provider, message: `${provider} ${deadline.describe()}` });
  if (ctx.signal.aborted) return new UpstreamError({ kind: 'aborted', provider, message: 'The request was cancelled.' });
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new UpstreamError({ kind: 'connection', provider, message: `Could not reach ${provider}: ${detail}` });
}

/**
 * POSTs JSON and returns the response once its status is 2xx; any other status becomes a
 * UpstreamError whose kind comes from the status. The deadline is left running for the body. One
 * promise per call (a `then`, not an `async` function awaiting the request: each await costs one more).
 */
export function postUpstream(call: UpstreamPost): Promise<UpstreamResponse> {
  const deadline = new Deadline(call.ctx.signal, { idleMs: call.ctx.timeoutMs, callMs: call.ctx.callTimeoutMs });
  let posted: Promise<UpstreamHttpResponse>;
  try {
    posted = httpPost({
      url: call.url,
      headers: { ...call.ctx.forwardedHeaders, 'content-type': 'application/json', ...call.headers },
      body: JSON.stringify(call.body),
      signal: deadline.signal,
      lookup: call.ctx.lookup,
    });
  } catch (err) {
    posted = Promise.reject(err);
  }
  return posted.then(
    (response) => (response.ok ? { response, deadline } : refused(call, response, deadline)),
    (err: unknown) => {
      deadline.clear();
      throw transportError(call.provider, err, { deadline, ctx: call.ctx });
    },
  );
}

/** A status other than 2xx: the error it means, with the body kept for the log. */
async function refused(call: UpstreamPost, response: UpstreamHttpResponse, deadline: Deadline): Promise<never> {
  const text = await response.text().catch(() => '');
  deadline.clear();
  const upstreamBody = text.slice(0, MAX_ERROR_BODY);
  throw new UpstreamError({
    kind: kindForStatus(response.status),
    provider: call.provider,
    status: response.status,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
    message: (call.errorMessage ?? openAiStyleMessage)(text) ?? `${call.provider} answered HTTP ${response.status}`,
    upstreamBody,
  });
}

/** Reads a JSON body under the deadline. */
export async function readJson<T>(provider: string, upstream: UpstreamResponse, ctx: ProviderContext): Promise<T> {
  try {
    return (await upstream.response.json()) as T;
  } catch (err) {
    if (err instanceof SyntaxError) throw new UpstreamError({ kind: 'invalid_response', provider, message: `${provider} sent a body that is not JSON` });
    throw transportError(provider, err, { deadline: upstream.deadline, ctx });
  } finally {
    upstream.deadline.clear();
  }
}
