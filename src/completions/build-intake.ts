import { asyncJobStore } from '../async-jobs/build-async-jobs';
import { AsyncJobStarter } from './async-job-starter';
import type { Infrastructure } from '../services/container';
import { CompletionGateway } from './completion-gateway';
import { CompletionIntake } from './completion-intake';
import { RateLimiter } from './rate-limiter';
import { replyChannel } from '../queue/replies';
import { ReplyListener } from './reply-listener';
import type { SpaceLookup } from './space-lookup';

export interface IntakeOptions {
  /** Spaces at their current configuration version. */
  spaces: SpaceLookup;
  /** How often a waiting request checks that its job is still alive, in ms (the gateway's default otherwise). */
  livenessIntervalMs?: number;
}

/** The API side of completions, wired to this process's reply channel. */
export function buildCompletionIntake(infra: Infrastructure, { spaces, ...options }: IntakeOptions): CompletionIntake {
  const { config, logger, redis, queues } = infra;
  const channel = replyChannel(config.redisPrefix, infra.instanceId);
  const listener = new ReplyListener(infra.dedicatedRedis(), channel, logger);
  return new CompletionIntake({
    spaces,
    rateLimiter: new RateLimiter(redis, config.redisPrefix),
    gateway: new CompletionGateway({ queue: queues.completions, listener, publisher: redis, prefix: config.redisPrefix, logger, ...options }),
    replyChannel: channel,
    timeoutMs: config.completionTimeoutMs,
    asyncJobs: new AsyncJobStarter({ store: asyncJobStore(infra), queue: queues.completions, logger }),
    canSignWebhooks: config.plugins.socialPost.secretKeys !== null,
  });
}
