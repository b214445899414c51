import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'bullmq';
import type { Express } from 'express';
import { buildApp } from '../../src/app/app';
import { SpaceLookup } from '../../src/intake/space-lookup';
import { buildCompletionIntake } from '../../src/app/build-intake';
import { QUEUE_NAMES } from '../../src/queue/names';
import { publishInOrder } from '../../src/queue/redis';
import { ApiError } from '../../src/errors/api-error';
import { simulatedProviders, setModels, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { callsTo, complete, completeStream, eventually, isolatedSpace, nth, onlyLogOf, settledStateOf, userMessage } from '../helpers/completion-fixtures';
import { watchLoopStalls } from '../helpers/loop-stalls';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import type { RecordedRequest } from '../simulator/server';
import { startSimulator, type Simulator } from '../simulator/server';

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
// Every test here calls the same simulated model, so each reads only its own upstream requests.
beforeEach(() => sim.reset());

/** Starts a completion over a raw connection, so the test can drop it like a client that gives up. */
function rawCompletion(app: Express, tenant: Tenant, body: object): { drop(): void; close(): Promise<void> } {
  const server = app.listen(0, '127.0.0.1');
  const send = () => {
    const req = http.request({
      host: '127.0.0.1',
      port: (server.address() as AddressInfo).port,
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify(body));
    return req;
  };
  let req: http.ClientRequest | undefined;
  server.on('listening', () => (req = send()));
  return {
    drop: () => req?.destroy(),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('a client that disconnects', () => {
  let h: CompletionsHarness;

  beforeAll(() => {
    // A long upstream timeout, so only the cancellation can explain an upstream call that ends early.
    h = startCompletionsHarness({ providers: simulatedProviders(sim), upstreamTimeoutMs: 10_000 });
  });
  afterAll(() => h.close());

  it.each([false, true])('cancels the job and closes the upstream connection within a second (stream: %s)', async (stream) => {
    const { tenant, models } = await isolatedSpace(h, { models: [{ name: 'hanging', namespace: 'sim-hang' }] });
    // Whatever the machine: each bound is on the process's own time (the time its loop was held is allowed on top).
    const sinceSent = watchLoopStalls();
    const client = rawCompletion(h.app, tenant, { messages: userMessage('Are you still there?'), stream });
    const upstream: RecordedRequest = await eventually(() => callsTo(sim, models.hanging).find((r) => r.closedAt === undefined));
    const droppedAt = Date.now();
    const sinceDrop = watchLoopStalls();
    client.drop();
    const closedAt = await eventually(() => upstream.closedAt);
    // Within a second: not the upstream timeout's 10 s.
    expect(closedAt - droppedAt).toBeLessThan(1000 + sinceDrop.heldMs());
    sinceDrop.stop();
    await client.close();

    // Still logged: the parent says the client left, the child the cancelled call.
    const { parent, children } = await onlyLogOf(h, tenant);
    expect(parent).toMatchObject({ status_code: 499, model_id: models.hanging.id, prompt: 'Are you still there?' });
    expect(children).toHaveLength(1);
    expect(children[0]).toMatchObject({ status_code: 499, costs_incurred: false });
    expect(nth(children, 0).latency).toBeLessThan(2000 + sinceSent.heldMs());
    sinceSent.stop();
    expect(await settledStateOf(h.services.queues.completions, parent.id)).toBe('completed');
  });

  it('logs 499 on the parent and the child when the client leaves a stream that has started', async () => {
    const { tenant, models } = await isolatedSpace(h, { models: [{ name: 'dripping', namespace: 'sim-drip-300' }] });
    const client = rawCompletion(h.app, tenant, { messages: userMessage('Tell me slowly.'), stream: true });
    const upstream: RecordedRequest = await eventually(() => callsTo(sim, models.dripping).find((r) => r.closedAt === undefined));
    // Past the first content chunks: the answer is streaming when the client leaves.
    await new Promise((resolve) => setTimeout(resolve, 700));
    client.drop();
    await eventually(() => upstream.closedAt);
    await client.close();
    const { parent, children } = await onlyLogOf(h, tenant);
    expect(parent).toMatchObject({ status_code: 499, model_id: models.dripping.id });
    expect(children.map((c) => c.status_code)).toEqual([499]);
  });
});

describe('the completion timeout', () => {
  let h: CompletionsHarness;
  const TIMEOUT_MS = 1000;

  beforeAll(() => {
    h = startCompletionsHarness({ providers: simulatedProviders(sim), completionTimeoutMs: TIMEOUT_MS, upstreamTimeoutMs: 10_000 });
  });
  afterAll(() => h.close());

  it('answers 504 when the upstream never answers, and stops the upstream call', async () => {
    const { tenant, models } = await isolatedSpace(h, { models: [{ name: 'hanging', namespace: 'sim-hang' }] });
    const stalls = watchLoopStalls();
    const startedAt = Date.now();
    const res = await complete(h, tenant, { messages: userMessage('Hello?') });
    expect(res.status).toBe(504);
    expect(res.body.error).toMatchObject({ code: 'timeout', type: 'timeout_error' });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    const upstream = nth(callsTo(sim, models.hanging), 0);
    const closedAt = await eventually(() => upstream.closedAt);
    expect(closedAt - startedAt).toBeLessThan(TIMEOUT_MS + 1000 + stalls.heldMs());
    stalls.stop();
    const { parent, children } = await onlyLogOf(h, tenant);
    expect(parent.status_code).toBe(504);
    expect(children.map((c) => c.status_code)).toEqual([499]);
  });

  it('answers a stream that never started with a JSON 504', async () => {
    const { tenant } = await isolatedSpace(h, { models: [{ name: 'hanging', namespace: 'sim-hang' }] });
    const res = await completeStream(h, tenant, { messages: userMessage('Hello?') });
    expect(res.status).toBe(504);
    expect(res.type).toMatch(/^application\/json/);
    expect(JSON.parse(res.text).error).toMatchObject({ code: 'timeout' });
  });

  it('answers 504 when the built-in slow test model takes longer than the timeout', async () => {
    const tenant = await h.tenant();
    await setModels(h.app, tenant, { 'test-slow': true });
    const res = await complete(h, tenant, { model: 'test-slow', messages: userMessage('Take your time.') });
    expect(res.status).toBe(504);
    expect(res.body.error).toMatchObject({ code: 'timeout' });
    expect((await onlyLogOf(h, tenant)).parent.status_code).toBe(504);
  });
});

/** What a request whose job is gone, and whose answer never came, is answered (with "; retry shortly."). */
const LOST = 'The completion job was lost by the queue (if it ran, its log, x-switchyard-log-id, holds the outcome); retry shortly.';

describe('a job whose worker dies', () => {
  let ctx: TestContext;
  let app: Express;
  const LIVENESS_MS = 200;

  beforeAll(() => {
    // No completion workers here, and a Redis prefix of its own so no other file's workers take the jobs.
    // No finished job kept (COMPLETION_JOBS_KEPT_ONE_IN=0): the liveness check must not need them.
    ctx = createTestContext({
      providers: simulatedProviders(sim),
      redisPrefix: `${process.env.REDIS_PREFIX}_${uniqueSuffix()}`,
      completionTimeoutMs: 20_000,
      completionJobsKeptOneIn: 0,
    });
    const completions = buildCompletionIntake(ctx.services, {
      spaces: new SpaceLookup(ctx.services.spaceContexts, ctx.services.spaceVersions),
      livenessIntervalMs: LIVENESS_MS,
    });
    app = buildApp({ config: ctx.services.config, logger: ctx.services.logger, services: { ...ctx.services, completions } });
  });
  afterAll(() => ctx.close());

  const queue = () => ctx.services.queues.completions;
  const waitingJobOf = (tenant: Tenant) =>
    eventually(async () => ((await queue().shards[0]?.getWaiting()) ?? []).find((job) => job.data.appId === tenant.app_id));

  /** A worker that ends the job as if it had run, without answering: BullMQ removes the job as it completes. */
  const silentWorker = () =>
    new Worker(QUEUE_NAMES.completions, async () => ({ statusCode: 200 }), {
      connection: ctx.services.queueConnection,
      prefix: ctx.services.config.redisPrefix,
    });

  it('answers a clear error soon after the job failed (failed jobs are kept whatever the sample)', async () => {
    const tenant = await ctx.tenant();
    const pending = complete({ app }, tenant, { messages: userMessage('Hello?') }).then((res) => ({ res, at: Date.now() }));
    const job = await waitingJobOf(tenant);
    // A worker that dies while running the job: BullMQ marks it failed (a completion job has one attempt).
    const crashing = new Worker(
      QUEUE_NAMES.completions,
      async () => {
        throw new Error('worker process died');
      },
      { connection: ctx.services.queueConnection, prefix: ctx.services.config.redisPrefix },
    );
    const stalls = watchLoopStalls();
    try {
      await eventually(async () => ((await queue().getJobState(job.id ?? '')) === 'failed' ? true : null));
      const failedAt = Date.now();
      const { res, at } = await pending;
      expect(res.status).toBe(500);
      expect(res.body.error).toMatchObject({ code: 'internal_error', message: 'The worker running this completion failed.' });
      // Found by the liveness check, well before the 20 s completion timeout.
      expect(at - failedAt).toBeLessThan(LIVENESS_MS + 2000 + stalls.heldMs());
    } finally {
      stalls.stop();
      await crashing.close();
    }
  });

  it('answers 503 with Retry-After when Redis lost the job before it ran (a restart, a failover), not 500', async () => {
    const tenant = await ctx.tenant();
    // `then` sends the request now (supertest sends only once awaited).
    const pending = complete({ app }, tenant, { messages: userMessage('Hello?') }).then((res) => res);
    const job = await waitingJobOf(tenant);
    await job.remove();
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.body.error).toMatchObject({ code: 'service_unavailable', message: LOST });
  });

  it('answers 503 naming the log when the job completed and was removed, and its answer never came (lost in a failover)', async () => {
    const tenant = await ctx.tenant();
    const pending = complete({ app }, tenant, { messages: userMessage('Hello?') }).then((res) => ({ res, at: Date.now() }));
    await waitingJobOf(tenant);
    const silent = silentWorker();
    const stalls = watchLoopStalls();
    try {
      const startedAt = Date.now();
      const { res, at } = await pending;
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.body.error).toMatchObject({ code: 'service_unavailable', message: LOST });
      expect(at - startedAt).toBeLessThan(3 * LIVENESS_MS + 2000 + stalls.heldMs());
    } finally {
      stalls.stop();
      await silent.close();
    }
  });

  it('does not take a job removed as it completed for lost: an answer still on its way when a check finds the job gone is relayed', async () => {
    const tenant = await ctx.tenant();
    const pending = complete({ app }, tenant, { messages: userMessage('Hello?') }).then((res) => res);
    const job = await waitingJobOf(tenant);
    const requestId = job.id ?? '';
    const queue = ctx.services.queues.completions;
    const getJobState = queue.getJobState.bind(queue);
    // Watches the real check (Redis answers it): the answer is published once a check has found the job gone.
    let goneSeen = 0;
    queue.getJobState = async (id) => {
      const state = await getJobState(id);
      if (id === requestId && state === 'unknown' && goneSeen++ === 0) {
        const failure = new ApiError('upstream_error', 'Answered by the test worker.').toFailure();
        await publishInOrder(ctx.services.redis, job.data.replyTo ?? '', JSON.stringify({ requestId, run: 'r1', type: 'error', failure }));
      }
      return state;
    };
    const silent = silentWorker();
    try {
      const res = await pending;
      expect(goneSeen).toBeGreaterThanOrEqual(1);
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ code: 'upstream_error', message: 'Answered by the test worker.' });
    } finally {
      queue.getJobState = getJobState;
      await silent.close();
    }
  });
});

describe('a queued job whose client disconnected before any worker took it', () => {
  let h: CompletionsHarness;

  beforeAll(() => {
    // One job at a time, so a second request waits in the queue behind a slow first one.
    h = startCompletionsHarness({ providers: simulatedProviders(sim), completionConcurrency: 1 });
  });
  afterAll(() => h.close());

  it('calls no upstream and still leaves its one log (499)', async () => {
    const { tenant, models } = await isolatedSpace(h, { models: [{ name: 'slow', namespace: `sim-slow-800` }, { name: 'quick' }] });
    const first = complete(h, tenant, { model: 'slow', messages: userMessage('Take your time.') }).then((res) => res);
    await eventually(() => callsTo(sim, models.slow)[0]);
    const client = rawCompletion(h.app, tenant, { model: 'quick', messages: userMessage('Never mind.') });
    const queue = h.services.queues.completions;
    const waiting = await eventually(async () => ((await queue.shards[0]?.getWaiting()) ?? []).find((job) => job.data.appId === tenant.app_id));
    client.drop();
    expect((await first).status).toBe(200);
    const log = await eventually(() => h.services.db.log.findUnique({ where: { id: waiting.data.requestId } }));
    expect(log).toMatchObject({ status_code: 499, parent_id: null });
    expect(await h.services.db.log.count({ where: { parent_id: waiting.data.requestId } })).toBe(0);
    expect(callsTo(sim, models.quick)).toHaveLength(0);
    await client.close();
  });
});
