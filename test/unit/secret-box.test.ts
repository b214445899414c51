import { randomBytes } from 'node:crypto';
import { readSocialPostConfig } from '../../src/config/plugins/social-post';
import { readSecretsConfig } from '../../src/config/secrets';
import { keyId, SecretBox, SecretOpenError } from '../../src/secrets/secret-box';

const TOKEN = 'mastodon-access-token-0123456789';
const CONTEXT = 'app-1\0social-post.mastodon.access_token';

describe('SecretBox (AES-256-GCM)', () => {
  const key = randomBytes(32);
  const box = new SecretBox({ current: key, previous: [] });

  it('opens what it sealed; the sealed text names the key and does not contain the secret', () => {
    const sealed = box.seal(TOKEN, CONTEXT);
    expect(box.open(sealed, CONTEXT)).toBe(TOKEN);
    expect(sealed.startsWith(`v1.${keyId(key)}.`)).toBe(true);
    expect(sealed).not.toContain(TOKEN);
    expect(sealed).not.toContain(Buffer.from(TOKEN).toString('base64'));
    expect(box.seal(TOKEN, CONTEXT)).not.toBe(sealed);
  });

  it('refuses a wrong key, another context, and altered text', () => {
    const sealed = box.seal(TOKEN, CONTEXT);
    expect(() => new SecretBox({ current: randomBytes(32), previous: [] }).open(sealed, CONTEXT)).toThrow(SecretOpenError);
    expect(() => box.open(sealed, 'app-2\0social-post.mastodon.access_token')).toThrow(SecretOpenError);
    const parts = sealed.split('.');
    const ciphertext = Buffer.from(parts[4] ?? '', 'base64url');
    ciphertext[0] = (ciphertext[0] ?? 0) ^ 1;
    parts[4] = ciphertext.toString('base64url');
    expect(() => box.open(parts.join('.'), CONTEXT)).toThrow(SecretOpenError);
    expect(() => box.open('not sealed', CONTEXT)).toThrow(SecretOpenError);
  });

  it('after a rotation opens old secrets with the previous key and seals new ones with the current key', () => {
    const sealedBefore = box.seal(TOKEN, CONTEXT);
    const next = randomBytes(32);
    const rotated = new SecretBox({ current: next, previous: [key] });
    expect(rotated.open(sealedBefore, CONTEXT)).toBe(TOKEN);
    expect(rotated.isStale(sealedBefore)).toBe(true);
    const sealedAfter = rotated.seal(TOKEN, CONTEXT);
    expect(rotated.isStale(sealedAfter)).toBe(false);
    expect(() => box.open(sealedAfter, CONTEXT)).toThrow(/does not have/);
  });
});

describe('readSecretsConfig', () => {
  it('reads a base64 key of 32 bytes and previous keys', () => {
    const current = randomBytes(32);
    const old = randomBytes(32);
    const config = readSecretsConfig({ PLUGIN_SECRETS_KEY: current.toString('base64'), PLUGIN_SECRETS_PREVIOUS_KEYS: old.toString('base64') });
    expect(config.keys?.current.equals(current)).toBe(true);
    expect(config.keys?.previous[0]?.equals(old)).toBe(true);
  });

  it('has no keys when PLUGIN_SECRETS_KEY is unset', () => {
    expect(readSecretsConfig({}).keys).toBeNull();
  });

  it('names the variable of a bad value', () => {
    expect(() => readSecretsConfig({ PLUGIN_SECRETS_KEY: randomBytes(16).toString('base64') })).toThrow(/PLUGIN_SECRETS_KEY must be 32 bytes/);
    expect(() => readSecretsConfig({ PLUGIN_SECRETS_PREVIOUS_KEYS: randomBytes(32).toString('base64') })).toThrow(/PLUGIN_SECRETS_KEY/);
  });
});

describe('readSocialPostConfig', () => {
  it('reads the network timeout, 15 s unless SOCIAL_POST_TIMEOUT_MS says otherwise', () => {
    expect(readSocialPostConfig({}).timeoutMs).toBe(15_000);
    expect(readSocialPostConfig({ SOCIAL_POST_TIMEOUT_MS: '300' }).timeoutMs).toBe(300);
    expect(() => readSocialPostConfig({ SOCIAL_POST_TIMEOUT_MS: 'soon' })).toThrow(/SOCIAL_POST_TIMEOUT_MS/);
  });
});
