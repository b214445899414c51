import { Webhook } from 'standardwebhooks';
import { endedStatus } from '../../src/domain/async-job';
import { generateWebhookSecret } from '../../src/async-jobs/webhook-secret';
import { signWebhook } from '../../src/async-jobs/webhook-signing';
import { readAsyncJobsConfig } from '../../src/config/async-jobs';
import { preferenceTokens } from '../../src/http/prefer-header';
import { webhookSecret } from '../../src/schemas/webhook-settings';
import { keepOwnWebhook, mergeWebhookSettings } from '../../src/services/apps/webhook-settings';

const failure = (code: string) => ({ failure: { status: 504, type: 'timeout_error', code, message: 'm', param: null } });

describe('preferenceTokens (RFC 7240)', () => {
  it.each([
    ['respond-async', ['respond-async']],
    ['Respond-Async', ['respond-async']],
    ['wait=10, respond-async', ['wait', 'respond-async']],
    ['respond-async; foo=bar', ['respond-async']],
    ['return=minimal,respond-async', ['return', 'respond-async']],
    ['', []],
  ])('%j → %j', (header, tokens) => {
    expect([...preferenceTokens(header)]).toEqual(tokens);
  });
  it('is empty without the header', () => expect(preferenceTokens(undefined).size).toBe(0));
});

describe('endedStatus', () => {
  const result = { result: {} as never };
  it('a result is completed, even past the deadline', () => expect(endedStatus(result, { aborted: false, pastDeadline: true })).toBe('completed'));
  it('an aborted run is cancelled', () => expect(endedStatus(failure('timeout'), { aborted: true, pastDeadline: false })).toBe('cancelled'));
  it('a timeout past the deadline is expired', () => expect(endedStatus(failure('timeout'), { aborted: false, pastDeadline: true })).toBe('expired'));
  it('any other failure is failed', () => {
    expect(endedStatus(failure('upstream_error'), { aborted: false, pastDeadline: true })).toBe('failed');
    expect(endedStatus(failure('timeout'), { aborted: false, pastDeadline: false })).toBe('failed');
  });
});

describe('webhook secrets and signatures', () => {
  it('generates secrets the schema and standardwebhooks accept', () => {
    const secret = generateWebhookSecret();
    expect(webhookSecret.safeParse(secret).success).toBe(true);
    const body = JSON.stringify({ type: 'chat.completion.job.completed', data: { id: 'x' } });
    const headers = signWebhook({ secret, id: 'msg_x', body });
    expect(headers['webhook-signature']).toMatch(/^v1,/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow();
  });
  it.each(['whsec_', 'whsec_c2hvcnQ=', 'sk_abc', `whsec_${Buffer.alloc(65).toString('base64')}`])('refuses %s', (secret) => {
    expect(webhookSecret.safeParse(secret).success).toBe(false);
  });
});

describe('Space webhook settings', () => {
  it('merges the URL, flags a secret, and null removes all', () => {
    expect(mergeWebhookSettings(undefined, { url: 'https://a.example/h' })).toEqual({ url: 'https://a.example/h', has_secret: true });
    expect(mergeWebhookSettings({ url: 'https://a.example/h', has_secret: true }, { rotate_secret: true })).toEqual({
      url: 'https://a.example/h',
      has_secret: true,
    });
    expect(mergeWebhookSettings({ url: 'https://a.example/h', has_secret: true }, { url: null })).toEqual({ url: null, has_secret: true });
    expect(mergeWebhookSettings({ url: 'https://a.example/h', has_secret: true }, null)).toBeUndefined();
  });
  it("a sandbox keeps its own webhook, never its main Space's", () => {
    const base = { assistant_id: null, assistant_version_id: null, instructions: null, max_tokens: null, temperature: null };
    const main = { ...base, webhook: { url: 'https://main.example/h', has_secret: true } };
    expect(keepOwnWebhook(main, null)).toEqual(base);
    expect(keepOwnWebhook(main, { ...base, webhook: { url: 'https://sandbox.example/h', has_secret: true } })).toEqual({
      ...base,
      webhook: { url: 'https://sandbox.example/h', has_secret: true },
    });
  });
});

describe('readAsyncJobsConfig', () => {
  it('has defaults', () => {
    expect(readAsyncJobsConfig({})).toEqual({ resultTtlSeconds: 86_400, webhookAttempts: 5, webhookBackoffMs: 10_000, webhookTimeoutMs: 10_000 });
  });
  it('names the variable of a bad value', () => {
    expect(() => readAsyncJobsConfig({ ASYNC_RESULT_TTL_SECONDS: '0' })).toThrow(/ASYNC_RESULT_TTL_SECONDS/);
    expect(() => readAsyncJobsConfig({ WEBHOOK_ATTEMPTS: 'many' })).toThrow(/WEBHOOK_ATTEMPTS/);
  });
});
