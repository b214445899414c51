import { z } from 'zod';

/**
 * Service-wide configuration of `social-post`. The accounts themselves are per Space (settings +
 * `space_secrets`); the key that seals their secrets is the service's (`config.secrets`, `src/config/secrets.ts`).
 */
export const socialPostConfigSchema = z.strictObject({
  /** Longest single call to a network (each of Bluesky's session and post calls), in ms. */
  timeoutMs: z.number().int().positive(),
});
export type SocialPostConfig = z.infer<typeof socialPostConfigSchema>;

const DEFAULT_TIMEOUT_MS = 15_000;

function readTimeout(env: Record<string, string | undefined>): number {
  const text = env.SOCIAL_POST_TIMEOUT_MS?.trim();
  if (!text) return DEFAULT_TIMEOUT_MS;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error('Invalid SOCIAL_POST_TIMEOUT_MS: must be a positive whole number of ms.');
  return value;
}

/** Reads `SOCIAL_POST_TIMEOUT_MS`; throws naming the variable. */
export function readSocialPostConfig(env: Record<string, string | undefined>): SocialPostConfig {
  return Object.freeze(socialPostConfigSchema.parse({ timeoutMs: readTimeout(env) }));
}

/** The variables `readSocialPostConfig` reads. */
export const SOCIAL_POST_ENV_VARIABLES: readonly string[] = ['SOCIAL_POST_TIMEOUT_MS'];
