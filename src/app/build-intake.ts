import { asyncJobStore } from '../async-jobs/build-async-jobs';
import type { AsyncJobStore } from '../async-jobs/job-store';
import { AsyncJobStarter } from '../intake/async-job-starter';
import type { Infrastructure } from './infrastructure';
import { CompletionGateway } from '../intake/completion-gateway';
import { CompletionIntake } from '../intake/completion-intake';
import { RateLimiter } from '../intake/rate-limiter';
import { ReplyListener } from '../intake/reply-listener';
import type { SpaceLookup } from '../intake/space-lookup';

export interface IntakeOptions {
  /** Spaces at their current configuration version. */
  spaces: SpaceLookup;
  /** Shared with the other services of the process; built here when absent (tests). */
  rateLimiter?: RateLimiter;
  asyncJobs?: AsyncJobStore;
  /** How often a waiting request checks that its job is still alive, in ms (the gateway's default otherwise). */
  livenessIntervalMs?: number;
}

/** The API side of completions, wired to this process's reply channel. */
export function buildCompletionIntake(infra: Infrastructure, { spaces, rateLimiter, asyncJobs, ...options }: IntakeOptions): CompletionIntake {
  const { config, logger, redis, queues, instanceId } = infra;
  const listener = new ReplyListener(
    { connect: () => infra.dedicatedRedis(), publisher: redis, clustered: infra.keySpace.clustered, channels: queues.completions.replyChannels(instanceId) },
    logger,
  );
  const gateway = new CompletionGateway({ queue: queues.completions, listener, publisher: redis, prefix: config.redisPrefix, logger, ...options });
  return new CompletionIntake({
    spaces,
    rateLimiter: rateLimiter ?? new RateLimiter(redis, infra.keySpace),
    gateway,
    replyChannelFor: (requestId) => queues.completions.replyChannelFor(requestId, instanceId),
    newRequestId: () => queues.completions.newRequestId(),
    timeoutMs: config.completionTimeoutMs,
    asyncJobs: new AsyncJobStarter({
      store: asyncJobs ?? asyncJobStore(infra),
      queue: queues.completions,
      logger,
      cancel: (requestId) => gateway.cancel(requestId),
    }),
    canSignWebhooks: config.secrets.keys !== null,
    autoModelName: config.autoModelName,
    keptOneIn: config.completionJobsKeptOneIn,
  });
}
