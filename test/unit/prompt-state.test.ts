import { screenPrompt, MAX_PUBLIC_PROMPT_TOKENS } from '../../src/services/prompts/prompt-screening';
import { ALLOWED_FROM, CLEARED, promptStatus, stampsAfter } from '../../src/schemas/prompt-state';

const now = new Date('2026-01-02T03:04:05Z');
const earlier = new Date('2026-01-01T00:00:00Z');

describe('prompt review states', () => {
  it('derives the state from the stamps', () => {
    expect(promptStatus(CLEARED)).toBe('draft');
    expect(promptStatus({ ...CLEARED, published_on: earlier })).toBe('pending');
    expect(promptStatus({ published_on: earlier, reviewed_on: now, approved_on: now, decline_reason: null })).toBe('approved');
    expect(promptStatus({ published_on: earlier, reviewed_on: now, approved_on: null, decline_reason: 'no' })).toBe('declined');
  });

  it('keeps published_on when a reviewer decides', () => {
    const pending = { ...CLEARED, published_on: earlier };
    expect(stampsAfter(pending, { action: 'approve', now })).toEqual({ published_on: earlier, reviewed_on: now, approved_on: now, decline_reason: null });
    expect(stampsAfter(pending, { action: 'decline', now, reason: 'vague' })).toEqual({
      published_on: earlier,
      reviewed_on: now,
      approved_on: null,
      decline_reason: 'vague',
    });
  });

  it('clears the review when a declined prompt is resubmitted', () => {
    const declined = { published_on: earlier, reviewed_on: earlier, approved_on: null, decline_reason: 'no' };
    expect(stampsAfter(declined, { action: 'publish', now })).toEqual({ ...CLEARED, published_on: now });
  });

  it('allows reviewing only pending prompts', () => {
    expect(ALLOWED_FROM.approve).toEqual(['pending']);
    expect(ALLOWED_FROM.decline).toEqual(['pending']);
    expect(ALLOWED_FROM.publish).not.toContain('pending');
    expect(ALLOWED_FROM.publish).not.toContain('approved');
  });
});

describe('screenPrompt', () => {
  it.each([
    ['-----BEGIN RSA PRIVATE KEY-----\nabc', 'a private key'],
    ['key AKIAABCDEFGHIJKLMNOP here', 'an AWS access key'],
    ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'a GitHub token'],
  ])('declines %j', (text, what) => {
    expect(screenPrompt(text, 10)).toEqual({ passed: false, reason: `Automated screening: the prompt appears to contain ${what}.` });
  });

  it('declines prompts over the token limit and passes ordinary ones', () => {
    expect(screenPrompt('hello', MAX_PUBLIC_PROMPT_TOKENS + 1).passed).toBe(false);
    expect(screenPrompt('You are a helpful assistant.', 6)).toEqual({ passed: true });
  });
});
