import { UnrecoverableError } from 'bullmq';
import type { Logger } from 'pino';
import { chatCompletionJobBody } from '../formats/chat-completion-job';
import type { HttpClient } from '../net/http-client';
import { UpstreamError } from '../errors/upstream-error';
import type { WebhookJob } from '../queue/payloads';
import type { AsyncJobRecord, WebhookDelivery } from '../domain/async-job';
import type { AsyncJobStore } from './job-store';
import { signWebhook } from './webhook-signing';

export interface DeliveryDeps {
  store: AsyncJobStore;
  /** The Space's signing secret (created if it has none). */
  secretOf(appId: string): Promise<string>;
  /** The SSRF-safe client: a webhook URL comes from a request or a Space's settings. */
  client: HttpClient;
  timeoutMs: number;
  logger: Logger;
}

/** Which try of how many this delivery is (BullMQ's `attemptsMade` counts the tries before it). */
export interface Attempt {
  number: number;
  of: number;
}

/** Largest receiver answer read, in bytes: only its status matters. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** The event sent (Standard Webhooks' payload shape: type, timestamp, data). */
export function webhookEvent(record: AsyncJobRecord, at: Date): { type: string; timestamp: string; data: ReturnType<typeof chatCompletionJobBody> } {
  return { type: `chat.completion.job.${record.status}`, timestamp: at.toISOString(), data: chatCompletionJobBody(record) };
}

/** A refused address or URL: retrying changes nothing. */
function isPermanent(err: unknown): boolean {
  return err instanceof UpstreamError && (err.kind === 'permission' || err.kind === 'bad_request');
}

/**
 * Delivers one async job's webhook: its stored record, formatted as `GET /v1/jobs/{id}` shows it,
 * signed, POSTed through the SSRF-safe client. A 2xx answer is a delivery; anything else throws, so
 * BullMQ retries with backoff; a refused address fails at once. The job's record tells how it went.
 */
export class WebhookDeliverer {
  constructor(private readonly deps: DeliveryDeps) {}

  async deliver(job: WebhookJob, attempt: Attempt): Promise<void> {
    const record = await this.deps.store.get(job.requestId);
    // Expired (past the result TTL) or never had a URL: there is nothing left to send.
    if (!record?.webhookUrl) return;
    const at = new Date();
    const body = JSON.stringify(webhookEvent(record, at));
    const tried = { attempts: attempt.number, deliveredAt: null };
    const headers = signWebhook({ secret: await this.secretFor(job, tried), id: `msg_${job.requestId}`, body, at });
    try {
      const response = await this.deps.client({
        method: 'POST',
        url: record.webhookUrl,
        headers: { 'content-type': 'application/json', 'user-agent': 'Switchyard-Webhooks/1', ...headers },
        body,
        signal: new AbortController().signal,
        timeoutMs: this.deps.timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
        service: 'webhook',
        acceptErrorStatus: true,
      });
      if (response.status >= 200 && response.status < 300) {
        return this.record(job, {
          ...tried,
          status: 'delivered',
          lastStatusCode: response.status,
          lastError: null,
          deliveredAt: Math.floor(Date.now() / 1000),
        });
      }
      await this.record(job, {
        ...tried,
        status: attempt.number >= attempt.of ? 'failed' : 'pending',
        lastStatusCode: response.status,
        lastError: `answered HTTP ${response.status}`,
      });
      throw new Error(`webhook answered HTTP ${response.status}`);
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      const permanent = isPermanent(err);
      await this.record(job, {
        ...tried,
        status: permanent || attempt.number >= attempt.of ? 'failed' : 'pending',
        lastStatusCode: null,
        lastError: err.message,
      });
      throw permanent ? new UnrecoverableError(err.message) : err;
    }
  }

  /** A secret that cannot be had (no PLUGIN_SECRETS_KEY, a key the service lost) fails the delivery at once: no retry would find it. */
  private async secretFor(job: WebhookJob, tried: Pick<WebhookDelivery, 'attempts' | 'deliveredAt'>): Promise<string> {
    try {
      return await this.deps.secretOf(job.appId);
    } catch (err) {
      const message = `the Space's webhook secret cannot be used: ${err instanceof Error ? err.message : String(err)}`;
      await this.record(job, { ...tried, status: 'failed', lastStatusCode: null, lastError: message });
      throw new UnrecoverableError(message);
    }
  }

  private async record(job: WebhookJob, delivery: WebhookDelivery): Promise<void> {
    await this.deps.store
      .setWebhook(job.requestId, delivery)
      .catch((err: unknown) => this.deps.logger.warn({ err, request_id: job.requestId }, 'webhook state not stored'));
  }
}
