import { Webhook } from 'standardwebhooks';

/** The Standard Webhooks headers of one delivery (https://www.standardwebhooks.com). */
export interface SignedHeaders {
  'webhook-id': string;
  /** Unix time, in seconds. */
  'webhook-timestamp': string;
  /** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
  'webhook-signature': string;
}

/**
 * Signs a payload with the `standardwebhooks` package, so receivers verify it with the same package
 * (`new Webhook(secret).verify(body, headers)`) or any Standard Webhooks library. The id stays the same
 * across retries of one event, so a receiver can drop a repeat.
 */
export function signWebhook({ secret, id, body, at = new Date() }: { secret: string; id: string; body: string; at?: Date }): SignedHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}
