import { randomUUID } from 'node:crypto';
import { asyncJobFinisher } from '../async-jobs/build-async-jobs';
import { Cancellations } from '../pipeline/cancellations';
import { claimRetentionMs, startClaimSweeper } from '../pipeline/claim-sweeper';
import { ClaimedRuns, type CompletionClaims } from '../pipeline/claimed-runs';
import { CompletionRunner } from '../pipeline/completion-runner';
import { ReplyPublisher } from '../pipeline/reply-publisher';
import { RunClaims } from '../pipeline/run-claim';
import { createProviderRegistry } from '../providers/registry';
import { publishInOrder } from '../queue/redis';
import { PROCESS_HEARTBEAT_INTERVAL_MS, PROCESS_HEARTBEAT_TTL_MS, ProcessHeartbeat } from '../resilience/process-heartbeat';
import { loadWeightsFile } from '../routing/learned/weights-file';
import { LatencyTracker } from '../routing/latency-tracker';
import { SpaceFeedbackLoader } from '../routing/online/space-feedback-loader';
import { learnedQuality } from '../routing/scorer';
import { CompletionClaimStore } from '../store/completion-claims';
import { CompletionSources } from '../store/completion-sources';
import { LogBatcher } from '../store/log-batcher';
import { modelStore } from '../store/models';
import type { CompletionWorker, WorkerServices } from '../../workers/worker-services';
import { workerPlugins } from './build-worker-plugins';
import { workerResilience } from './build-worker-resilience';
import { privacyPolicyOf } from '../domain/privacy-policy';

/** How long a worker reuses a Space's ratings, in ms. */
const SPACE_FEEDBACK_MS = 2000;
/** How often a duplicate run looks whether the run it duplicates has ended, in ms (only after a job was handed out twice). */
const DUPLICATE_POLL_MS = 1000;
/** Longest wait for a completion's claim to commit, in ms of the process's own time (as for its log; docs/decisions.md). */
const CLAIM_WAIT_MS = 5000;
/** How often each worker process deletes old claims, in ms. */
const CLAIM_SWEEP_MS = 60_000;

/**
 * The claims that let a job BullMQ hands out twice (its lock lost in a Redis failover) run once
 * (docs/reliability.md, "Runs at most once"): this process's heartbeat names it alive, claims and their
 * ends share group-committed statements, and old claims are swept.
 */
function completionClaims(services: WorkerServices): CompletionClaims {
  const { db, redis, config, logger } = services;
  const owner = randomUUID();
  const heartbeat = new ProcessHeartbeat({ redis, prefix: config.redisPrefix, id: owner, logger });
  heartbeat.start();
  const store = new CompletionClaimStore(db, logger);
  const claims = new RunClaims({
    store,
    owner,
    isOwnerAlive: (id) => heartbeat.isAlive(id),
    // A whole TTL and one renewal more: after a failover the holder may need a few renewals to reach the new master.
    recheckMs: PROCESS_HEARTBEAT_TTL_MS + PROCESS_HEARTBEAT_INTERVAL_MS,
    pollMs: DUPLICATE_POLL_MS,
    claimWaitMs: CLAIM_WAIT_MS,
    logger,
  });
  const stopSweeper = startClaimSweeper({ store, retainMs: claimRetentionMs(config.completionTimeoutMs), everyMs: CLAIM_SWEEP_MS, logger });
  return {
    decide: (job, run) => claims.decide(job, run),
    finishUnlessLogged: (job, summary) => {
      if (summary === undefined || !privacyPolicyOf(job.privacyLevel).writesLog) store.finish(job.requestId);
    },
    close: async () => {
      stopSweeper();
      await store.close();
      await heartbeat.stop();
    },
  };
}

/** A worker process's completions: the runner and everything it calls, built once per process. */
export function buildCompletionWorker(services: WorkerServices): CompletionWorker {
  const { db, redis, config, logger } = services;
  const cancellations = new Cancellations(services.dedicatedRedis(), config.redisPrefix);
  // Listening from the start, so a cancellation of a job still in the queue is heard before the job is taken.
  cancellations.start().catch((err: unknown) => logger.warn({ err }, 'cancellations not subscribed'));
  const logs = new LogBatcher(db, logger);
  const claims = completionClaims(services);
  const replies = new ReplyPublisher(
    (channel, message) => publishInOrder(redis, channel, message),
    (err) => logger.warn({ err }, 'coalesced replies not published'),
  );
  const router = loadWeightsFile(config.routerWeightsFile);
  const resilience = workerResilience(services);
  const plugins = workerPlugins(services);
  const publish = (channel: string, reply: Parameters<ReplyPublisher['publish']>[1]) => replies.publish(channel, reply);
  const runner = new CompletionRunner({
    spaces: services.spaceContexts,
    sources: new CompletionSources(db),
    registry: createProviderRegistry(config),
    latency: new LatencyTracker(),
    router,
    quality: learnedQuality(router),
    feedback: new SpaceFeedbackLoader(db, SPACE_FEEDBACK_MS),
    plugins: plugins.steps,
    selectPlugins: plugins.select,
    spaceHasFiles: plugins.spaceHasFiles,
    logs,
    logger,
    autoModelName: config.autoModelName,
    resilience: resilience.resilience,
    publish,
    asyncJobs: asyncJobFinisher(services),
    modelExists: (orgId, name) => modelStore.nameKnownTo(db, orgId, name),
  });
  // Both subscriptions, awaited by the jobs taken before they are up.
  const listen = () => Promise.all([cancellations.start(), resilience.start()]).then(() => undefined);
  const runs = new ClaimedRuns({ runner, claims, cancellations, publish, listen, logger });
  return {
    runs,
    close: async () => {
      resilience.stop();
      await Promise.all([replies.close(), logs.close(), plugins.close()]);
      await claims.close();
    },
  };
}
