import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { asyncJobFinisher } from '../src/async-jobs/build-async-jobs';
import { Cancellations } from '../src/pipeline/cancellations';
import { ReplyPublisher } from '../src/pipeline/reply-publisher';
import { publishInOrder } from '../src/queue/redis';
import { CompletionRunner, type DetachedRun, type RunSummary } from '../src/pipeline/completion-runner';
import { LogBatcher } from '../src/store/log-batcher';
import { ApiError } from '../src/errors/api-error';
import { CompletionClaimStore } from '../src/store/completion-claims';
import { RunClaims } from '../src/pipeline/run-claim';
import { claimRetentionMs, startClaimSweeper } from '../src/pipeline/claim-sweeper';
import { PROCESS_HEARTBEAT_INTERVAL_MS, PROCESS_HEARTBEAT_TTL_MS, ProcessHeartbeat } from '../src/resilience/process-heartbeat';
import { maskedJob } from '../src/pipeline/privacy';
import { createProviderRegistry } from '../src/providers/registry';
import type { CompletionJob } from '../src/queue/payloads';
import { loadWeightsFile } from '../src/routing/learned/weights-file';
import { LatencyTracker } from '../src/routing/latency-tracker';
import { SpaceFeedbackLoader } from '../src/routing/online/space-feedback-loader';
import { learnedQuality } from '../src/routing/scorer';
import type { WorkerServices } from './worker-services';
import { CompletionSources } from '../src/store/completion-sources';
import { modelStore } from '../src/store/models';
import { workerPlugins } from './plugins';
import { workerResilience } from './resilience';

/** How long a worker reuses a Space's ratings, in ms. */
const SPACE_FEEDBACK_MS = 2000;
/** How often a duplicate run looks whether the run it duplicates has ended, in ms (only after a job was handed out twice). */
const DUPLICATE_POLL_MS = 1000;
/** Longest wait for a completion's claim to commit, in ms (as for its log). */
const CLAIM_WAIT_MS = 5000;
/** How often each worker process deletes old claims, in ms. */
const CLAIM_SWEEP_MS = 60_000;

/**
 * What a run that found its job already claimed by a live or finished run returns to BullMQ: it ran
 * nothing (409: the request is another run's). Never seen by a client, whose answer the holder publishes.
 */
const DUPLICATE_RUN: RunSummary = { statusCode: 409, model: null, privacyLevel: 1 };
/** A run whose claim PostgreSQL did not take (it did not answer in time): it ran nothing and answered 503. */
const UNCLAIMED_RUN: RunSummary = { statusCode: 503, model: null, privacyLevel: 1 };
/** Seconds the client is asked to wait when its request could not be claimed. */
const UNCLAIMED_RETRY_AFTER_SECONDS = 2;

interface CompletionClaims {
  decide: RunClaims['decide'];
  /**
   * Marks a run ended, unless its log marks it (a run that logged is finished in its claim's eyes): only
   * a run at privacy level 3, which writes no log, or one that threw, costs the mark's statement.
   */
  finishUnlessLogged(requestId: string, summary: RunSummary | undefined): void;
  close(): Promise<void>;
}

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
    finishUnlessLogged: (requestId, summary) => {
      if (summary === undefined || summary.privacyLevel >= 3) store.finish(requestId);
    },
    close: async () => {
      stopSweeper();
      await store.close();
      await heartbeat.stop();
    },
  };
}

export interface CompletionProcessing {
  process(job: Job<CompletionJob>): Promise<RunSummary>;
  /**
   * Runs a completion nobody waits for live (a batch line) with this process's runner, and hands back its
   * outcome; null when another run holds the request's claim (the job was handed out twice) and answers it.
   */
  runDetached(job: CompletionJob, signal: AbortSignal): Promise<DetachedRun | null>;
  close(): Promise<void>;
}

/** Everything a completion worker needs, built once per process. */
export function completionProcessing(services: WorkerServices): CompletionProcessing {
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
    publish: (channel, reply) => replies.publish(channel, reply),
    asyncJobs: asyncJobFinisher(services),
    modelExists: (orgId, name) => modelStore.nameKnownTo(db, orgId, name),
  });
  // Both subscriptions, awaited by the jobs taken before they are up; once up, a job awaits nothing for them.
  let listening = false;
  const listen = () => Promise.all([cancellations.start(), resilience.start()]).then(() => void (listening = true));
  return {
    async process(job) {
      if (!listening) await listen();
      const run = randomUUID();
      // Before any upstream or plugin call: a second run of the job ends here (one batched statement per turn).
      const decision = await claims.decide(job.data, run).catch((err: unknown) => {
        logger.error({ err, request_id: job.data.requestId }, 'completion not claimed: it runs nothing');
        return 'unclaimed' as const;
      });
      if (decision === 'unclaimed') {
        // PostgreSQL did not take the claim: nothing was called, so the client may send the request again.
        const failure = new ApiError('service_unavailable', 'The service could not record the request; retry shortly.').withHeaders({ 'Retry-After': String(UNCLAIMED_RETRY_AFTER_SECONDS) }).toFailure();
        if (job.data.replyTo) await replies.publish(job.data.replyTo, { requestId: job.data.requestId, run, type: 'error', failure }).catch(() => undefined);
        return UNCLAIMED_RUN;
      }
      if (decision === 'duplicate') {
        logger.warn({ request_id: job.data.requestId, job_id: job.id }, 'completion job handed out again while claimed: this run does nothing');
        return DUPLICATE_RUN;
      }
      const { signal, release } = cancellations.track(job.data.requestId);
      let summary: RunSummary | undefined;
      try {
        summary = await runner.run(job.data, signal, run);
        // bull-board keeps finished jobs for a while: past level 1 none may keep the conversation's text.
        if (summary.privacyLevel >= 2) await job.updateData(maskedJob(job.data));
        return summary;
      } finally {
        release();
        claims.finishUnlessLogged(job.data.requestId, summary);
      }
    },
    async runDetached(job, signal) {
      if (!listening) await listen();
      const run = randomUUID();
      // A batch line's job handed out twice runs once, as a completion's does (its claim fails the line's job if PostgreSQL is away).
      if ((await claims.decide(job, run)) === 'duplicate') {
        logger.warn({ request_id: job.requestId }, 'batch line handed out again while claimed: this run does nothing');
        return null;
      }
      let detached: DetachedRun | undefined;
      try {
        detached = await runner.runDetached(job, signal, run);
        return detached;
      } finally {
        claims.finishUnlessLogged(job.requestId, detached?.summary);
      }
    },
    close: async () => {
      resilience.stop();
      await Promise.all([replies.close(), logs.close(), plugins.close()]);
      await claims.close();
    },
  };
}
