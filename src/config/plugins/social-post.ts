import { z } from 'zod';

/** AES-256 wants exactly 32 bytes of key. */
const KEY_BYTES = 32;

const base64Key = (variable: string) =>
  z
    .string()
    .trim()
    .transform((text, ctx) => {
      const key = Buffer.from(text, 'base64');
      if (key.length !== KEY_BYTES || key.toString('base64').replace(/=+$/, '') !== text.replace(/=+$/, '')) {
        ctx.addIssue({ code: 'custom', message: `${variable} must be ${KEY_BYTES} bytes in base64 (e.g. \`openssl rand -base64 32\`)` });
        return z.NEVER;
      }
      return key;
    });

/**
 * Service-wide configuration of `social-post` and of Space secrets. The accounts themselves are per
 * Space (settings + `space_secrets`); what the service holds is the key that seals their secrets.
 */
export const socialPostConfigSchema = z.strictObject({
  /**
   * `PLUGIN_SECRETS_KEY`: seals new secrets. `PLUGIN_SECRETS_PREVIOUS_KEYS` (comma-separated): still
   * open secrets sealed before a rotation. null: the service cannot store credentials, so the plugin
   * is unavailable and setting one is refused.
   */
  secretKeys: z.object({ current: z.instanceof(Buffer), previous: z.array(z.instanceof(Buffer)) }).nullable(),
  /** Longest single call to a network (each of Bluesky's session and post calls), in ms. */
  timeoutMs: z.number().int().positive(),
});
export type SocialPostConfig = z.infer<typeof socialPostConfigSchema>;

const DEFAULT_TIMEOUT_MS = 15_000;

function readKeys(env: Record<string, string | undefined>): SocialPostConfig['secretKeys'] {
  const current = env.PLUGIN_SECRETS_KEY?.trim();
  const previousText = env.PLUGIN_SECRETS_PREVIOUS_KEYS?.trim();
  if (!current) {
    if (previousText) throw new Error('PLUGIN_SECRETS_PREVIOUS_KEYS is set but PLUGIN_SECRETS_KEY is not: set the current key too.');
    return null;
  }
  const parse = (variable: string, text: string): Buffer => {
    const result = base64Key(variable).safeParse(text);
    if (!result.success) throw new Error(`Invalid ${variable}: ${result.error.issues[0]?.message ?? 'not a key'}`);
    return result.data;
  };
  const previous = previousText ? previousText.split(',').filter((part) => part.trim()).map((part) => parse('PLUGIN_SECRETS_PREVIOUS_KEYS', part)) : [];
  return { current: parse('PLUGIN_SECRETS_KEY', current), previous };
}

function readTimeout(env: Record<string, string | undefined>): number {
  const text = env.SOCIAL_POST_TIMEOUT_MS?.trim();
  if (!text) return DEFAULT_TIMEOUT_MS;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error('Invalid SOCIAL_POST_TIMEOUT_MS: must be a positive whole number of ms.');
  return value;
}

/** Reads `PLUGIN_SECRETS_KEY`, `PLUGIN_SECRETS_PREVIOUS_KEYS` and `SOCIAL_POST_TIMEOUT_MS`; throws naming the variable. */
export function readSocialPostConfig(env: Record<string, string | undefined>): SocialPostConfig {
  return Object.freeze(socialPostConfigSchema.parse({ secretKeys: readKeys(env), timeoutMs: readTimeout(env) }));
}

/** The variables `readSocialPostConfig` reads. */
export const SOCIAL_POST_ENV_VARIABLES: readonly string[] = ['PLUGIN_SECRETS_KEY', 'PLUGIN_SECRETS_PREVIOUS_KEYS', 'SOCIAL_POST_TIMEOUT_MS'];
