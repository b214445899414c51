import { decidedJobParts } from '../helpers/completion-job';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { LOG_COMMIT_WAIT_MS } from '../../src/pipeline/completion-runner';
import type { Reply } from '../../src/queue/replies';
import type { CompletionJob } from '../../src/queue/payloads';
import { useSimulatedHarness } from '../helpers/completions';
import { watchLoopStalls } from '../helpers/loop-stalls';
import { complete, completeStream, eventually, isolatedSpace, nth, settledStateOf, sseEvents, userMessage } from '../helpers/completion-fixtures';
import type { Tenant } from '../helpers/test-context';

const env = useSimulatedHarness();

const getLog = (tenant: Tenant, id: string) => request(env.h.app).get(`/v1/logs/${id}`).set(tenant.auth);

describe('a log', () => {
  it('is readable the moment its answer has arrived', async () => {
    const { tenant } = await isolatedSpace(env.h, { models: [{ name: 'answering' }] });
    for (let i = 0; i < 30; i += 1) {
      const res = await complete(env.h, tenant, { messages: userMessage(`Question ${i}`) });
      expect(res.status).toBe(200);
      const log = await getLog(tenant, res.body.id);
      expect(log.status).toBe(200);
      expect(log.body.children).toBeNull();
    }
  });

  it('of a stream is readable the moment [DONE] has arrived', async () => {
    const { tenant } = await isolatedSpace(env.h, { models: [{ name: 'answering' }] });
    for (let i = 0; i < 20; i += 1) {
      const res = await completeStream(env.h, tenant, { messages: userMessage(`Question ${i}`) });
      expect(res.text.endsWith('data: [DONE]\n\n')).toBe(true);
      expect((await getLog(tenant, nth(sseEvents(res.text), 0).id as string)).status).toBe(200);
    }
  });

  it('exists for a conversation whose assistant turn leaves content out (as OpenAI allows)', async () => {
    const { tenant } = await isolatedSpace(env.h, { models: [{ name: 'answering' }] });
    const messages = [{ role: 'user', content: 'Hi' }, { role: 'assistant' }, { role: 'user', content: 'Still there?' }];
    const res = await complete(env.h, tenant, { messages });
    expect(res.status).toBe(200);
    expect((await getLog(tenant, res.body.id)).body).toMatchObject({ status_code: 200, prompt: 'Still there?' });
  });

  it('of a failed request is readable the moment its error has arrived', async () => {
    const { tenant } = await isolatedSpace(env.h, { models: [{ name: 'failing', namespace: 'sim-400' }] });
    const res = await complete(env.h, tenant, { messages: userMessage('Hi') });
    expect(res.status).toBe(400);
    const log = await getLog(tenant, String(res.headers['x-switchyard-log-id']));
    expect(log.status).toBe(200);
    expect(log.body.status_code).toBe(400);
  });
});

describe('an answer whose log cannot be committed', () => {
  it('is released after LOG_COMMIT_WAIT_MS, and its log written once the database moves again', async () => {
    const { tenant } = await isolatedSpace(env.h, { models: [{ name: 'answering' }] });
    // Another session holds the logs table: every insert waits, as on a hung database.
    const blocker = new Client({ connectionString: env.h.services.config.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE logs IN ACCESS EXCLUSIVE MODE');
      const startedAt = Date.now();
      const res = await complete(env.h, tenant, { messages: userMessage('Hi') });
      expect(res.status).toBe(200);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(LOG_COMMIT_WAIT_MS - 100);
      await blocker.query('ROLLBACK');
      await eventually(async () => ((await getLog(tenant, res.body.id)).status === 200 ? true : null));
    } finally {
      await blocker.end();
    }
  }, 30_000);
});

/** Puts a job on the queue as an API process would, and collects what the worker replies. */
async function enqueue(tenant: Tenant, changes: Partial<CompletionJob>): Promise<{ job: CompletionJob; replies: Reply[] }> {
  const replyTo = `${env.h.services.config.redisPrefix}:replies:test-${randomUUID()}`;
  const subscriber = env.h.services.dedicatedRedis();
  const replies: Reply[] = [];
  await subscriber.subscribe(replyTo);
  subscriber.on('message', (_channel: string, message: string) => replies.push(JSON.parse(message) as Reply));
  const now = Date.now();
  const job: CompletionJob = {
    requestId: randomUUID(),
    orgId: tenant.org_id,
    appId: tenant.app_id,
    spaceStamp: '',
    idpId: 'someone',
    ...decidedJobParts({ messages: [{ role: 'user', content: 'Hi' }] }),
    replyTo,
    deadline: now + 60_000,
    receivedAt: now,
    ...changes,
  };
  await env.h.services.queues.completions.add('completion', job, { jobId: job.requestId, attempts: 1 });
  return { job, replies };
}

describe('a job', () => {
  it('that waited in the queue past its deadline is answered 504 and logged, with no upstream call', async () => {
    const { tenant } = await isolatedSpace(env.h, { models: [{ name: 'answering' }] });
    const calls = env.sim.requests.length;
    const { job, replies } = await enqueue(tenant, { deadline: Date.now() - 1 });
    const reply = await eventually(() => replies[0]);
    expect(reply).toMatchObject({ type: 'error', failure: { status: 504 } });
    expect(await env.h.services.db.log.findUnique({ where: { id: job.requestId } })).toMatchObject({ status_code: 504 });
    expect(env.sim.requests.length).toBe(calls);
  });

  it('that fails on a bug of ours is answered 500 at once and logged', async () => {
    const { tenant } = await isolatedSpace(env.h, { models: [{ name: 'answering' }] });
    // A payload no API process of this version would enqueue: the worker trips over it.
    const decided = decidedJobParts({ messages: [{ role: 'user', content: 'Hi' }] }).request;
    const broken = { ...decided, chat: { messages: 'not a list' } } as unknown as CompletionJob['request'];
    const clock = watchLoopStalls();
    const { job, replies } = await enqueue(tenant, { request: broken });
    const reply = await eventually(() => replies[0]);
    // At once, on the process's own time (however loaded the machine): not after a retry or a timeout.
    expect(clock.ownMs()).toBeLessThan(2000);
    clock.stop();
    expect(reply).toMatchObject({
      type: 'error',
      failure: { status: 500, code: 'internal_error', message: `Internal error. Quote request id ${job.requestId} when reporting it.` },
    });
    expect(await env.h.services.db.log.findUnique({ where: { id: job.requestId } })).toMatchObject({ status_code: 500 });
    expect(await settledStateOf(env.h.services.queues.completions, job.requestId)).toBe('completed');
  });
});
