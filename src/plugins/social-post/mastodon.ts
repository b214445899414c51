import { z } from 'zod';
import { endpoint, parseBody, type NetworkCall } from './call';

export interface MastodonAccount {
  network: 'mastodon';
  instanceUrl: string;
  accessToken: string;
  visibility: 'public' | 'unlisted' | 'private' | 'direct';
}

/** Mastodon keeps an Idempotency-Key for up to an hour; past that a repeat would post again. */
export const MASTODON_IDEMPOTENCY_WINDOW_MS = 60 * 60 * 1000;

/** The instance is a Space's setting (untrusted), and the URL reaches clients as a link: http(s) only. */
const webUrl = z.url({ protocol: /^https?$/ });
const statusSchema = z.object({ id: z.string().min(1), uri: webUrl, url: webUrl.nullable().optional() });

export interface PublishedPost {
  id: string;
  url: string;
}

/**
 * `POST /api/v1/statuses` with the request id as `Idempotency-Key`: a repeat of the same request
 * (a retried step, a job run twice within the hour) gets the status already made instead of a second one.
 */
export async function postToMastodon(
  account: MastodonAccount,
  { text, idempotencyKey }: { text: string; idempotencyKey: string },
  call: NetworkCall,
): Promise<PublishedPost> {
  const response = await call.http({
    method: 'POST',
    url: endpoint(account.instanceUrl, '/api/v1/statuses'),
    headers: {
      authorization: `Bearer ${account.accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'idempotency-key': idempotencyKey,
    },
    body: JSON.stringify({ status: text, visibility: account.visibility }),
    signal: call.signal,
    timeoutMs: call.timeoutMs,
    service: 'mastodon',
  });
  const status = parseBody(response, statusSchema, 'mastodon');
  return { id: status.id, url: status.url ?? status.uri };
}
