import { clusterRow, type ClusterFindings } from '../cluster-failover-row';
import { batchOutcome, killBusiestMaster, type Failover } from '../cluster-failover-steps';
import { recovered, type RecoveryRule, type SentRequest } from '../cluster-outage';
import { duplicateLogInserts, loggedProblemsSince, NODE_TIMEOUT_MS, startClusterStack, type ClusterStack } from '../cluster-stack';
import { ApiClient, type Completion } from '../completions';
import type { Fault, FaultContext } from '../fault';
import { tailOf } from '../service';
import { createRowSpace, type RowSpace } from '../spaces';
import { runArrivals, runCount, runUntil, sleep } from '../traffic';
import { createAsyncJob, fileLines, readBatch, readJob, submitBatch, waitForBatch, waitForJob, type ApiKeyed, type AsyncJob } from '../work-clients';

/**
 * Interactive clients (half of their requests stream), each sending its next request when the last ended,
 * beside new requests arriving every ARRIVAL_MS whatever happens (what a failover does to a new request:
 * the clients alone would all be waiting on stalled ones); the model answers them in LIVE_DELAY_MS.
 */
const CLIENTS = 6;
const ARRIVAL_MS = 200;
const LIVE_DELAY_MS = 100;
/** Batch lines and their model's answer time, in ms: at 8 lines at once per Space, about 30 s of work, across the kill. */
const BATCH_LINES = 120;
const BATCH_DELAY_MS = 2000;
/** Load before the kill, in ms: the window the masters' command shares are read over. */
const LOAD_BEFORE_KILL_MS = 10_000;
/** The longest the traffic goes on after the kill, waiting for the service to recover, in ms. */
const RECOVERY_CAP_MS = 40_000;
/**
 * Recovered: 10 s after the replica took over, every request sent over a 5 s stretch ending 2 s ago answered
 * ok (2 s is twenty times the model's time), and at least 20 of them: a few clients stuck on unanswered
 * requests do not pass for a recovery.
 */
const RECOVERY: RecoveryRule = { settleMs: 10_000, windowMs: 5000, graceMs: 2000, least: 20 };
/** A client's patience, in ms: a request unanswered after it counts as not answered. */
const PATIENCE_MS = 20_000;
/** How long after the kill the batch may take to end, in ms. */
const BATCH_CAP_MS = 60_000;

const tagOfLine = (i: number) => `cluster-batch-${i}`;
const ASYNC_TAG = 'cluster-async';

function batchLines(model: string): string[] {
  return Array.from({ length: BATCH_LINES }, (_, i) =>
    JSON.stringify({
      custom_id: `line-${i}`,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model, messages: [{ role: 'user', content: `[rel:${tagOfLine(i)}] Answer line ${i}.` }] },
    }),
  );
}

interface BeforeFault {
  space: RowSpace;
  client: ApiClient;
  keyed: () => ApiKeyed[];
  job: AsyncJob | null;
  batchId: string;
  warmFailures: number;
}

/** A Space on the cluster's service, a warm-up, one async job finished, and the batch started. */
async function prepare(ctx: FaultContext, { stack }: ClusterStack): Promise<BeforeFault> {
  const space = await createRowSpace(ctx.db, stack.liveApiUrls()[0] ?? '', {
    row: 'cluster failover',
    models: [
      { role: 'live', quality: 0.9 },
      { role: 'batch', quality: 0.5 },
    ],
  });
  ctx.upstream.script(
    space.upstreamName.live ?? '',
    Array.from({ length: 20_000 }, () => ({ kind: 'ok' as const, delayMs: LIVE_DELAY_MS })),
  );
  ctx.upstream.script(
    space.upstreamName.batch ?? '',
    Array.from({ length: BATCH_LINES * 3 }, () => ({ kind: 'ok' as const, delayMs: BATCH_DELAY_MS })),
  );
  const client = new ApiClient(() => stack.liveApiUrls(), space.apiKey);
  const keyed = () => stack.liveApiUrls().map((apiUrl) => ({ apiUrl, apiKey: space.apiKey }));
  const warm = await runCount(8, 4, (i) => client.complete(`cluster-warm-${i}`, { stream: i % 2 === 1, timeoutMs: 30_000 }));
  const [first, second] = keyed();
  if (!first || !second) throw new Error('the cluster stack has not two API processes');
  const created = await createAsyncJob(first, ASYNC_TAG);
  const job = await waitForJob(second, created.id, 20_000);
  const batch = await submitBatch(second, batchLines(space.upstreamName.batch ?? ''));
  // Running, not just accepted: a line has reached the model.
  const deadline = Date.now() + 20_000;
  while (ctx.upstream.callsFor([tagOfLine(0), tagOfLine(1), tagOfLine(2), tagOfLine(3)]) === 0 && Date.now() < deadline) await sleep(100);
  return { space, client, keyed, job, batchId: batch.id, warmFailures: warm.filter((c) => !c.ok).length };
}

/** Traffic from before the kill until the service has recovered (or the cap); the failover caused inside it. */
async function trafficAcrossTheKill(
  world: ClusterStack,
  before: BeforeFault,
): Promise<{ completions: Completion[]; failover: Failover; recoveredAt: number | null }> {
  const sent: SentRequest[] = [];
  let stopAt = Number.POSITIVE_INFINITY;
  // Every API process gone (the run interrupted and cleaning up) ends the traffic too; one that died alone is a finding, counted below.
  const stop = () => Date.now() >= stopAt || world.stack.liveApiUrls().length === 0;
  // Streams on i % 4 of 1 and 2: the client takes the two API processes in turn, so each gets both kinds.
  const send = async (tag: string, i: number) => {
    if (stop()) return;
    const request: SentRequest = { sentAt: Date.now(), result: null };
    sent.push(request);
    request.result = await before.client.complete(tag, { stream: i % 4 === 1 || i % 4 === 2, timeoutMs: PATIENCE_MS });
  };
  const traffic = Promise.all([
    runUntil({ concurrency: CLIENTS, maxJobs: 20_000, stop }, (i) => send(`cluster-${i}`, i)),
    runArrivals({ intervalMs: ARRIVAL_MS, stop }, (i) => send(`cluster-new-${i}`, i)),
  ]);
  // Awaited below; handled now so that a failure while the kill is under way is not an unhandled rejection.
  traffic.catch(() => undefined);
  let failover: Failover;
  let recoveredAt: number | null = null;
  try {
    await sleep(1000);
    failover = await killBusiestMaster(world, {
      loadMs: LOAD_BEFORE_KILL_MS,
      batchDoneAtKill: async () => (await readBatch(before.keyed()[0] ?? { apiUrl: '', apiKey: '' }, before.batchId))?.request_counts.completed ?? null,
      promotionTimeoutMs: RECOVERY_CAP_MS,
    });
    while (recoveredAt === null && Date.now() < failover.killedAt + RECOVERY_CAP_MS) {
      if (recovered(sent, RECOVERY, { promotedAt: failover.promotedAt, now: Date.now() })) recoveredAt = Date.now();
      else await sleep(250);
    }
  } finally {
    stopAt = Date.now();
    await traffic;
  }
  return { failover, recoveredAt, completions: sent.flatMap((request) => (request.result ? [request.result] : [])) };
}

/** Waits for the batch, reads its files, the job and the logs: everything the row reports, before the teardown. */
async function measure(ctx: FaultContext, world: ClusterStack, before: BeforeFault): Promise<ClusterFindings> {
  const { completions, failover, recoveredAt } = await trafficAcrossTheKill(world, before);
  const state = await waitForBatch(before.keyed, before.batchId, Math.max(Date.now() + 10_000, failover.killedAt + BATCH_CAP_MS));
  const reader = before.keyed()[0] ?? { apiUrl: '', apiKey: '' };
  const [output, errors] = [await fileLines(reader, state?.output_file_id ?? null), await fileLines(reader, state?.error_file_id ?? null)];
  const jobAfter = await Promise.all(before.keyed().map((client) => readJob(client, before.job?.id ?? '')));
  const lostLogs = await ctx.lostLogs(
    completions.map((c) => c.logId),
    15_000,
  );
  return {
    setup: `cluster-node-timeout ${NODE_TIMEOUT_MS} ms; ${CLIENTS} clients and a new request every ${ARRIVAL_MS} ms (half streaming, model ${LIVE_DELAY_MS} ms) from ${LOAD_BEFORE_KILL_MS / 1000} s before the kill until recovered; client patience ${PATIENCE_MS / 1000} s; ${BATCH_LINES}-line batch (model ${BATCH_DELAY_MS} ms)`,
    completions,
    failover,
    recoveredAt,
    recoveryCapMs: RECOVERY_CAP_MS,
    byTag: ctx.upstream.callsByTag(),
    otherTags: [ASYNC_TAG],
    batch: { state, lines: batchOutcome(ctx.upstream, { batch: state, output, errors, count: BATCH_LINES, tagOf: tagOfLine }), count: BATCH_LINES },
    job: { before: before.job, after: jobAfter },
    lostLogs,
    duplicateLogInserts: duplicateLogInserts(world.stack),
    problems: loggedProblemsSince(world.stack, failover.killedAt),
    warmFailures: before.warmFailures,
    exited: [...world.stack.apis, ...world.stack.workers]
      .filter((proc) => proc.child.exitCode !== null || proc.child.signalCode !== null)
      .map((proc) => `${proc.name} (${proc.child.exitCode ?? proc.child.signalCode})`),
  };
}

export const clusterFailover: Fault = {
  name: 'cluster failover',
  summary:
    'A 3-master Redis Cluster with a replica each under 2 API and 2 worker processes: the busiest master gets SIGKILL under load, with a batch running and an async job finished.',
  stack: 'own',
  skippedInShortRun: 'about 2 minutes on its own stack and cluster; `--rows "cluster failover"` runs it',
  run: async (ctx) => {
    const world = await startClusterStack(ctx);
    try {
      return clusterRow('cluster failover', await measure(ctx, world, await prepare(ctx, world)));
    } catch (err) {
      // The row's processes and their logs go with the teardown: their last lines explain the failure.
      for (const proc of [...world.stack.apis, ...world.stack.workers]) ctx.say(`--- ${proc.name} (cluster) ---\n${tailOf(proc.logFile, 8)}`);
      throw err;
    } finally {
      await world.teardown();
    }
  },
};
