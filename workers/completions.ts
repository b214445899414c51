import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { asyncJobFinisher } from '../src/async-jobs/build-async-jobs';
import { Cancellations } from '../src/pipeline/cancellations';
import { ReplyPublisher } from '../src/pipeline/reply-publisher';
import { publishInOrder } from '../src/queue/redis';
import { CompletionRunner, type DetachedRun, type RunSummary } from '../src/pipeline/completion-runner';
import { LogBatcher } from '../src/store/log-batcher';
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

export interface CompletionProcessing {
  process(job: Job<CompletionJob>): Promise<RunSummary>;
  /** Runs a completion nobody waits for live (a batch line) with this process's runner, and hands back its outcome. */
  runDetached(job: CompletionJob, signal: AbortSignal): Promise<DetachedRun>;
  close(): Promise<void>;
}

/** Everything a completion worker needs, built once per process. */
export function completionProcessing(services: WorkerServices): CompletionProcessing {
  const { db, redis, config, logger } = services;
  const cancellations = new Cancellations(services.dedicatedRedis(), config.redisPrefix);
  // Listening from the start, so a cancellation of a job still in the queue is heard before the job is taken.
  cancellations.start().catch((err: unknown) => logger.warn({ err }, 'cancellations not subscribed'));
  const logs = new LogBatcher(db, logger);
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
      const { signal, release } = cancellations.track(job.data.requestId);
      try {
        const summary = await runner.run(job.data, signal, randomUUID());
        // bull-board keeps finished jobs for a while: past level 1 none may keep the conversation's text.
        if (summary.privacyLevel >= 2) await job.updateData(maskedJob(job.data));
        return summary;
      } finally {
        release();
      }
    },
    async runDetached(job, signal) {
      if (!listening) await listen();
      return runner.runDetached(job, signal, randomUUID());
    },
    close: async () => {
      resilience.stop();
      await Promise.all([replies.close(), logs.close(), plugins.close()]);
    },
  };
}
