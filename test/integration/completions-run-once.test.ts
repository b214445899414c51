import { subscribeInOrder } from '../../src/queue/redis';
import { sqlPoolOf } from '../../src/store/db';
import { startWorkers, type RunningWorkers } from '../../src/app/start-workers';
import { callsTo, complete, eventually, isolatedSpace, script, sleep, userMessage } from '../helpers/completion-fixtures';
import { useSimulatedHarness } from '../helpers/completions';

/**
 * Issue 22: a job BullMQ hands out a second time while its first run is still in its upstream call
 * (its lock lost, as in a Redis failover) must not call upstream again. The fault is made for real:
 * the job's lock key is deleted, BullMQ's stalled-job check puts the job back in the queue and a worker
 * takes it again. Two sets of workers run (as two processes would, each with its own claims owner).
 */
const env = useSimulatedHarness({ upstreamTimeoutMs: 60_000, upstreamFirstByteTimeoutMs: 60_000 });
/** How long the upstream takes to answer, in ms: long enough for the job to be handed out again meanwhile. */
const UPSTREAM_MS = 6000;

let second: RunningWorkers;
beforeAll(() => {
  second = startWorkers(env.h.services);
});
afterAll(async () => {
  await second.close();
});

describe('a completion job handed out again while its first run is in its upstream call', () => {
  it('calls upstream once, answers once and logs once', async () => {
    const { h, sim } = env;
    const { tenant, models } = await isolatedSpace(h, { models: [{ name: 'slow' }] });
    script(sim, models.slow, [
      { kind: 'ok', delayMs: UPSTREAM_MS },
      { kind: 'ok', delayMs: UPSTREAM_MS },
    ]);
    // `then` sends the request now (supertest sends on the first `then`).
    const answer = complete(h, tenant, { model: 'slow', messages: userMessage('Run me once') }).then((res) => res);

    await eventually(() => (callsTo(sim, models.slow).length === 1 ? true : null));
    const queue = h.services.queues.completions;
    const [job] = (await Promise.all(queue.shards.map((shard) => shard.getActive()))).flat();
    if (!job?.id) throw new Error('no active completion job');
    const shard = queue.queueFor(job.id);
    // Every final message (`done` or `error`) published for the request, whichever run publishes it.
    const finals: string[] = [];
    await subscribeInOrder(h.services.dedicatedRedis(), [job.data.replyTo ?? ''], (message) => {
      if (message.includes(String(job.id)) && /"type":"(done|error)"/.test(message)) finals.push(message);
    });
    const lockKey = shard.toKey(`${job.id}:lock`);
    const firstLock = await h.services.redis.get(lockKey);
    expect(firstLock).not.toBeNull();
    // The lock lost: the next stalled-job checks (every second) put the job back, and a worker takes it again.
    await h.services.redis.del(lockKey);
    const secondLock = await eventually(async () => {
      const token = await h.services.redis.get(lockKey);
      return token !== null && token !== firstLock ? token : null;
    });
    expect(secondLock).not.toBe(firstLock);

    const res = await answer;
    expect(res.status).toBe(200);
    const requestId = String(res.headers['x-switchyard-log-id']);
    expect(requestId).toBe(job.id);
    // The second run ends once the first has finished; give it time to call upstream, were it to.
    await eventually(async () => ((await queue.getJobState(job.id ?? '')) === 'completed' ? true : null));
    await sleep(500);
    expect(callsTo(sim, models.slow)).toHaveLength(1);
    expect(finals).toHaveLength(1);
    expect(await h.services.db.log.count({ where: { id: requestId } })).toBe(1);
    // Answered by one call, which its log's own row keeps: no child row, and never a second one.
    expect(await h.services.db.log.count({ where: { parent_id: requestId } })).toBe(0);
  }, 60_000);

  it('is run again when its claim is held by a process that died before it finished (no heartbeat)', async () => {
    const { h, sim } = env;
    const { tenant, models } = await isolatedSpace(h, { models: [{ name: 'quick' }] });
    const res = await complete(h, tenant, { model: 'quick', messages: userMessage('Claimed by a dead worker') });
    expect(res.status).toBe(200);
    const requestId = String(res.headers['x-switchyard-log-id']);
    const queue = h.services.queues.completions;
    const done = await eventually(async () => ((await queue.getJobState(requestId)) === 'completed' ? queue.getJob(requestId) : null));
    // As if the worker that claimed the job had died before its log was written, and BullMQ then handed the job out again.
    await h.services.db.log.deleteMany({ where: { id: requestId } });
    await sqlPoolOf(h.services.db).query(`UPDATE completion_claims SET owner = 'a-dead-process', run = 'lost', finished_at = NULL WHERE request_id = $1`, [
      requestId,
    ]);
    await done.remove();
    await queue.add('completion', done.data, { jobId: requestId, attempts: 1 });

    await eventually(async () => ((await queue.getJobState(requestId)) === 'completed' ? true : null));
    expect(callsTo(sim, models.quick)).toHaveLength(2);
    expect(await h.services.db.log.count({ where: { id: requestId } })).toBe(1);
    // Its claim now names the live worker that ran it; its log marks it finished (a run that logs sends no mark).
    const { rows } = await sqlPoolOf(h.services.db).query<{ owner: string }>('SELECT owner FROM completion_claims WHERE request_id = $1', [requestId]);
    expect(rows[0]?.owner).not.toBe('a-dead-process');
  }, 30_000);
});
