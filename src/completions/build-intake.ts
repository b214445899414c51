import type { SpaceVersions } from '../cache/space-versions';
import type { Infrastructure } from '../services/container';
import { CompletionGateway } from './completion-gateway';
import { CompletionIntake } from './completion-intake';
import { RateLimiter } from './rate-limiter';
import { replyChannel } from './replies';
import { ReplyListener } from './reply-listener';
import { SpaceLookup } from './space-lookup';

/** How long the API reuses a Space's rate limit and state, in ms. */
const SPACE_CACHE_MS = 2000;

export interface IntakeOptions {
  /** The Spaces' configuration versions, shared with the writers that change them. */
  versions: SpaceVersions;
  /** How often a waiting request checks that its job is still alive, in ms (the gateway's default otherwise). */
  livenessIntervalMs?: number;
}

/** The API side of completions, wired to this process's reply channel. */
export function buildCompletionIntake(infra: Infrastructure, { versions, ...options }: IntakeOptions): CompletionIntake {
  const { config, logger, redis, queues, db } = infra;
  const channel = replyChannel(config.redisPrefix, infra.instanceId);
  const listener = new ReplyListener(infra.dedicatedRedis(), channel, logger);
  return new CompletionIntake({
    spaces: new SpaceLookup(db, versions, SPACE_CACHE_MS),
    rateLimiter: new RateLimiter(redis, config.redisPrefix),
    gateway: new CompletionGateway({ queue: queues.completions, listener, publisher: redis, prefix: config.redisPrefix, logger, ...options }),
    replyChannel: channel,
    timeoutMs: config.completionTimeoutMs,
  });
}
