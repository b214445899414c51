import type { Job } from 'bullmq';
import { WebhookDeliverer } from '../src/async-jobs/webhook-delivery';
import { webhookSecretOf } from '../src/async-jobs/webhook-secret';
import { createSafeClient } from '../src/net/safe-fetch';
import type { WebhookJob } from '../src/queue/payloads';
import { secretBoxFor } from '../src/secrets/secret-box';
import type { WorkerServices } from './worker-services';

/** Delivers async jobs' webhooks, signed with each Space's secret, through the SSRF-safe client. */
export function webhooksProcessor(services: WorkerServices) {
  const { config, db, logger } = services;
  const { net } = config.plugins;
  const box = secretBoxFor(config.secrets.keys);
  const deliverer = new WebhookDeliverer({
    store: services.asyncJobs,
    secretOf: async (appId) => {
      if (!box) throw new Error('the service has no PLUGIN_SECRETS_KEY');
      return webhookSecretOf(db, { appId, box });
    },
    client: createSafeClient({ allowedHosts: net.ssrfAllowedHosts, maxBytes: net.fetchMaxBytes, timeoutMs: config.asyncJobs.webhookTimeoutMs }),
    timeoutMs: config.asyncJobs.webhookTimeoutMs,
    logger,
  });
  return async (job: Job<WebhookJob>): Promise<void> => {
    const attempt = { number: job.attemptsMade + 1, of: job.opts.attempts ?? 1 };
    try {
      await deliverer.deliver(job.data, attempt);
    } catch (err) {
      logger.warn({ err, request_id: job.data.requestId, attempt: attempt.number }, 'webhook not delivered');
      throw err;
    }
  };
}
