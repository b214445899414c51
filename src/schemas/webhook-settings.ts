import { z } from 'zod';

/**
 * A Space's webhook for async chat completions (`settings.webhook`). The URL is plain settings; the
 * signing secret is sealed apart in `space_secrets` and never shown again after the response that
 * generated it.
 */

export const webhookUrl = z.url({ protocol: /^https?$/ }).max(2048);

/** Standard Webhooks' secret format: `whsec_` and 24 to 64 random bytes in base64. */
export const webhookSecret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, 'must be `whsec_` followed by base64')
  .refine((secret) => {
    const bytes = Buffer.from(secret.slice('whsec_'.length), 'base64').length;
    return bytes >= 24 && bytes <= 64;
  }, 'must hold 24 to 64 bytes (e.g. `whsec_` + `openssl rand -base64 32`)');

export const webhookSettingsPatch = z
  .strictObject({
    url: webhookUrl
      .nullable()
      .optional()
      .describe('Called when an async job of the Space ends (unless the request names its own `webhook_url`); null removes it.'),
    secret: webhookSecret.optional().describe('Write-only: the signing secret. Generated when the Space has none (shown once, in this response).'),
    rotate_secret: z.literal(true).optional().describe('Replaces the secret with a new generated one, shown once in this response.'),
  })
  .refine((patch) => !(patch.secret !== undefined && patch.rotate_secret), { message: 'give `secret` or `rotate_secret`, not both', path: ['rotate_secret'] })
  .describe("Extra field: the Space's webhook for async jobs (`Prefer: respond-async`), signed the Standard Webhooks way.")
  .meta({ id: 'WebhookSettingsPatch' });
export type WebhookSettingsPatch = z.infer<typeof webhookSettingsPatch>;

export const webhookSettingsView = z
  .object({
    url: z.string().nullable(),
    has_secret: z.boolean().describe('Whether a signing secret is stored (it is never shown again).'),
    secret: z.string().optional().describe('Only in the response that generated the secret: store it now, it is not shown again.'),
  })
  .describe("Extra field: the Space's webhook for async jobs, present once set.")
  .meta({ id: 'WebhookSettings' });
export type WebhookSettingsView = z.infer<typeof webhookSettingsView>;

/** What `settings.webhook` holds in the database (never a secret). */
export interface StoredWebhookSettings {
  url: string | null;
  has_secret: boolean;
}

export function readWebhookSettings(stored: unknown): StoredWebhookSettings | undefined {
  if (stored === null || typeof stored !== 'object') return undefined;
  const { url, has_secret: hasSecret } = stored as Record<string, unknown>;
  return { url: typeof url === 'string' ? url : null, has_secret: hasSecret === true };
}
