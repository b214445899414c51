import { UpstreamError } from '../../src/errors/upstream-error';
import { geminiErrorMessage, parseRetryDelay, refineGeminiError } from '../../src/providers/gemini/errors';

const INVALID_KEY = JSON.stringify({
  error: {
    code: 400,
    message: 'API key not valid. Please pass a valid API key.',
    status: 'INVALID_ARGUMENT',
    details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
  },
});

const QUOTA = JSON.stringify({
  error: {
    code: 429,
    message: 'You exceeded your current quota.',
    status: 'RESOURCE_EXHAUSTED',
    details: [{ '@type': 'type.googleapis.com/google.rpc.QuotaFailure' }, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '19.5s' }],
  },
});

const fromStatus = (status: number, kind: UpstreamError['kind'], body: string) =>
  new UpstreamError({ kind, provider: 'gemini', status, message: geminiErrorMessage(body) ?? 'x', upstreamBody: body });

describe('gemini errors', () => {
  it.each([
    [INVALID_KEY, 'API key not valid. Please pass a valid API key.'],
    [JSON.stringify([{ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }]), 'overloaded'],
    ['<html>Bad gateway</html>', undefined],
  ])('reads the message of %s', (body, message) => {
    expect(geminiErrorMessage(body)).toBe(message);
  });

  it.each([
    ['19s', 19000],
    ['3.700s', 3700],
    ['0s', 0],
    ['soon', undefined],
    [undefined, undefined],
  ])('reads retryDelay %s as %s ms', (delay, ms) => {
    expect(parseRetryDelay(delay)).toBe(ms);
  });

  it('makes an API_KEY_INVALID 400 an authentication error, keeping its status and body', () => {
    const refined = refineGeminiError(fromStatus(400, 'bad_request', INVALID_KEY));
    expect(refined).toMatchObject({ kind: 'authentication', status: 400, upstreamBody: INVALID_KEY });
    expect(refined.retryable).toBe(false);
  });

  it('takes a 429 retry hint from RetryInfo, but prefers Retry-After', () => {
    expect(refineGeminiError(fromStatus(429, 'rate_limited', QUOTA)).retryAfterMs).toBe(19500);
    const withHeader = new UpstreamError({ kind: 'rate_limited', provider: 'gemini', status: 429, message: 'x', upstreamBody: QUOTA, retryAfterMs: 2000 });
    expect(refineGeminiError(withHeader).retryAfterMs).toBe(2000);
  });

  it('leaves other errors as they are', () => {
    const plain = fromStatus(400, 'bad_request', JSON.stringify({ error: { code: 400, message: 'bad', status: 'INVALID_ARGUMENT' } }));
    expect(refineGeminiError(plain)).toBe(plain);
    const missingKey = fromStatus(403, 'permission', JSON.stringify({ error: { code: 403, message: 'unregistered callers', status: 'PERMISSION_DENIED' } }));
    expect(refineGeminiError(missingKey)).toBe(missingKey);
  });
});
