import { z } from 'zod';

/** AES-256 wants exactly 32 bytes of key. */
const KEY_BYTES = 32;

type Env = Record<string, string | undefined>;

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
 * The key that seals Space secrets (`space_secrets`: social accounts, webhook signing secrets, custom
 * models' API keys), service-wide: every part that stores or opens one reads it from here.
 */
export const secretsConfigSchema = z.strictObject({
  /**
   * `PLUGIN_SECRETS_KEY`: seals new secrets. `PLUGIN_SECRETS_PREVIOUS_KEYS` (comma-separated): still
   * open secrets sealed before a rotation. null: the service cannot store credentials, so setting one
   * is refused, webhooks cannot be signed and the social-post plugin is unavailable.
   */
  keys: z.object({ current: z.instanceof(Buffer), previous: z.array(z.instanceof(Buffer)) }).nullable(),
});
export type SecretsConfig = z.infer<typeof secretsConfigSchema>;

function readKeys(env: Env): SecretsConfig['keys'] {
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
  const previous = previousText
    ? previousText
        .split(',')
        .filter((part) => part.trim())
        .map((part) => parse('PLUGIN_SECRETS_PREVIOUS_KEYS', part))
    : [];
  return { current: parse('PLUGIN_SECRETS_KEY', current), previous };
}

/** Reads `PLUGIN_SECRETS_KEY` and `PLUGIN_SECRETS_PREVIOUS_KEYS`; throws naming the variable. */
export function readSecretsConfig(env: Env): SecretsConfig {
  return Object.freeze(secretsConfigSchema.parse({ keys: readKeys(env) }));
}

/** The variables `readSecretsConfig` reads. */
export const SECRETS_ENV_VARIABLES: readonly string[] = ['PLUGIN_SECRETS_KEY', 'PLUGIN_SECRETS_PREVIOUS_KEYS'];
