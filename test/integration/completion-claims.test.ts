import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { ClaimTimeoutError, RunClaims, type RunClaimsOptions } from '../../src/pipeline/run-claim';
import { PROCESS_HEARTBEAT_INTERVAL_MS, PROCESS_HEARTBEAT_TTL_MS, ProcessHeartbeat } from '../../src/resilience/process-heartbeat';
import { CompletionClaimStore } from '../../src/store/completion-claims';
import { sqlPoolOf } from '../../src/store/db';
import { LogBatcher } from '../../src/store/log-batcher';
import { createTestContext, type Tenant, type TestContext } from '../helpers/test-context';
import { TEST_REDIS_URL, uniqueSuffix } from '../helpers/test-database';

const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const prefix = `test-claims-${uniqueSuffix()}`;

let ctx: TestContext;
let tenant: Tenant;
let store: CompletionClaimStore;
let redis: Redis;
const heartbeats: ProcessHeartbeat[] = [];

beforeAll(async () => {
  ctx = createTestContext();
  tenant = await ctx.tenant();
  store = new CompletionClaimStore(ctx.services.db, logger);
  redis = new Redis(TEST_REDIS_URL);
});
afterAll(async () => {
  await Promise.all(heartbeats.map((heartbeat) => heartbeat.stop()));
  await store.close();
  redis.disconnect();
  await ctx.close();
});

/** A worker process as the claims see it: its id and, unless it is dead, its heartbeat. */
function workerProcess({ alive }: { alive: boolean }): { owner: string; heartbeat: ProcessHeartbeat } {
  const owner = randomUUID();
  const heartbeat = new ProcessHeartbeat({ redis, prefix, id: owner, logger });
  heartbeats.push(heartbeat);
  if (alive) heartbeat.start();
  return { owner, heartbeat };
}

function claimsOf(owner: string, heartbeat: ProcessHeartbeat, overrides: Partial<RunClaimsOptions> = {}): RunClaims {
  return new RunClaims({
    store,
    owner,
    isOwnerAlive: (id) => heartbeat.isAlive(id),
    recheckMs: 2 * PROCESS_HEARTBEAT_INTERVAL_MS,
    pollMs: 100,
    claimWaitMs: 5000,
    logger,
    ...overrides,
  });
}

const soon = () => Date.now() + 60_000;

/** What a long synchronous task or garbage collection does to this process's event loop. */
function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy.
  }
}

async function claimRow(requestId: string): Promise<{ owner: string; run: string; finished_at: Date | null } | undefined> {
  const { rows } = await sqlPoolOf(ctx.services.db).query<{ owner: string; run: string; finished_at: Date | null }>(
    'SELECT owner, run, finished_at FROM completion_claims WHERE request_id = $1',
    [requestId],
  );
  return rows[0];
}

describe('completion claims', () => {
  it('give a request to the first run only, many claims sharing a statement', async () => {
    const requestIds = Array.from({ length: 50 }, () => randomUUID());
    const first = await Promise.all(requestIds.map((id) => store.claim(id, { owner: 'a', run: `run-${id}` })));
    expect(first.every((view) => view.taken)).toBe(true);
    const second = await Promise.all(requestIds.map((id) => store.claim(id, { owner: 'b', run: 'other' })));
    expect(second.map((view) => ({ taken: view.taken, owner: view.holder?.owner, finished: view.finished }))).toEqual(
      requestIds.map(() => ({ taken: false, owner: 'a', finished: false })),
    );
  });

  it('tell a run whose claim raced another in the same statement that it is not the holder', async () => {
    const id = randomUUID();
    const [a, b] = await Promise.all([store.claim(id, { owner: 'a', run: 'one' }), store.claim(id, { owner: 'b', run: 'two' })]);
    expect([a.taken, b.taken]).toEqual([true, false]);
    expect((await store.read(id))?.holder).toEqual({ owner: 'a', run: 'one' });
  });

  it('count a run as finished once marked, or once its request’s log exists', async () => {
    const marked = randomUUID();
    await store.claim(marked, { owner: 'a', run: 'one' });
    store.finish(marked);
    expect((await store.claim(marked, { owner: 'b', run: 'two' })).finished).toBe(true);

    const logged = randomUUID();
    await store.claim(logged, { owner: 'a', run: 'one' });
    const logs = new LogBatcher(ctx.services.db, logger);
    await logs.write({ parent: { id: logged, org_id: tenant.org_id, app_id: tenant.app_id, timestamp: Date.now() }, children: [] });
    await logs.close();
    expect((await store.read(logged))?.finished).toBe(true);
  });

  it('end a second run of a job while the first one’s process lives, once the first has finished', async () => {
    const first = workerProcess({ alive: true });
    const second = workerProcess({ alive: true });
    const job = { requestId: randomUUID(), deadline: soon() };
    expect(await claimsOf(first.owner, first.heartbeat).decide(job, 'run-1')).toBe('run');
    const started = Date.now();
    const decided = claimsOf(second.owner, second.heartbeat).decide(job, 'run-2');
    await sleep(600);
    store.finish(job.requestId);
    expect(await decided).toBe('duplicate');
    // It waited for the holder, which lived, rather than take the claim over.
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect(await claimRow(job.requestId)).toMatchObject({ owner: first.owner, run: 'run-1' });
  });

  it('let the same run go on when its claim is already its own (a claim sent again)', async () => {
    const only = workerProcess({ alive: true });
    const job = { requestId: randomUUID(), deadline: soon() };
    const claims = claimsOf(only.owner, only.heartbeat);
    expect(await claims.decide(job, 'run-1')).toBe('run');
    expect(await claims.decide(job, 'run-1')).toBe('run');
  });

  it('take over the unfinished claim of a process whose heartbeat is gone, and run', async () => {
    const dead = workerProcess({ alive: false });
    const live = workerProcess({ alive: true });
    const job = { requestId: randomUUID(), deadline: soon() };
    await store.claim(job.requestId, { owner: dead.owner, run: 'lost' });
    const started = Date.now();
    expect(await claimsOf(live.owner, live.heartbeat).decide(job, 'retry')).toBe('run');
    // Declared dead only after a second look, two heartbeat intervals later.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * PROCESS_HEARTBEAT_INTERVAL_MS);
    expect(await claimRow(job.requestId)).toMatchObject({ owner: live.owner, run: 'retry', finished_at: null });
  });

  it('never take over a finished run, even of a dead process', async () => {
    const dead = workerProcess({ alive: false });
    const live = workerProcess({ alive: true });
    const job = { requestId: randomUUID(), deadline: soon() };
    await store.claim(job.requestId, { owner: dead.owner, run: 'done' });
    store.finish(job.requestId);
    await store.claim(randomUUID(), { owner: dead.owner, run: 'flush' });
    expect(await claimsOf(live.owner, live.heartbeat).decide(job, 'late')).toBe('duplicate');
  });

  it('leave the claim to a holder whose heartbeat comes back within the re-check (a heartbeat lost in a failover)', async () => {
    const blinking = workerProcess({ alive: false });
    const live = workerProcess({ alive: true });
    const job = { requestId: randomUUID(), deadline: soon() };
    await store.claim(job.requestId, { owner: blinking.owner, run: 'first' });
    const decided = claimsOf(live.owner, live.heartbeat).decide(job, 'second');
    // The holder's heartbeat is missing at the first look, as after a failover lost it, and written again before the second.
    await sleep(PROCESS_HEARTBEAT_INTERVAL_MS);
    blinking.heartbeat.start();
    await sleep(PROCESS_HEARTBEAT_TTL_MS);
    expect(await claimRow(job.requestId)).toMatchObject({ owner: blinking.owner, run: 'first' });
    store.finish(job.requestId);
    expect(await decided).toBe('duplicate');
  });

  it('past the deadline, end a duplicate of a live holder at once, but take over a dead one’s (its run then fails as timed out, and logs once)', async () => {
    const holder = workerProcess({ alive: true });
    const dead = workerProcess({ alive: false });
    const live = workerProcess({ alive: true });
    const late = { requestId: randomUUID(), deadline: Date.now() - 1 };
    await store.claim(late.requestId, { owner: holder.owner, run: 'first' });
    expect(await claimsOf(live.owner, live.heartbeat).decide(late, 'second')).toBe('duplicate');
    const orphan = { requestId: randomUUID(), deadline: Date.now() - 1 };
    await store.claim(orphan.requestId, { owner: dead.owner, run: 'first' });
    expect(await claimsOf(live.owner, live.heartbeat).decide(orphan, 'second')).toBe('run');
  });

  it('never take a claim over on a heartbeat it could not read', async () => {
    const dead = workerProcess({ alive: false });
    const live = workerProcess({ alive: true });
    const job = { requestId: randomUUID(), deadline: soon() };
    await store.claim(job.requestId, { owner: dead.owner, run: 'first' });
    const decided = claimsOf(live.owner, live.heartbeat, { isOwnerAlive: () => Promise.reject(new Error('Redis away')) }).decide(job, 'second');
    await sleep(4 * PROCESS_HEARTBEAT_INTERVAL_MS);
    expect(await claimRow(job.requestId)).toMatchObject({ owner: dead.owner, run: 'first' });
    store.finish(job.requestId);
    expect(await decided).toBe('duplicate');
  });

  it('fail a run whose claim PostgreSQL does not commit within the wait, naming the wait', async () => {
    const { owner, heartbeat } = workerProcess({ alive: true });
    const hung = { ...store, claim: () => new Promise<never>(() => undefined) } as unknown as CompletionClaimStore;
    const claims = claimsOf(owner, heartbeat, { store: hung, claimWaitMs: 30 });
    await expect(claims.decide({ requestId: randomUUID(), deadline: soon() }, 'one')).rejects.toThrow(new ClaimTimeoutError(30));
  });

  it('let a run go on whose claim was committed while this process’s event loop was held past the wait', async () => {
    const { owner, heartbeat } = workerProcess({ alive: true });
    const claims = claimsOf(owner, heartbeat, { claimWaitMs: 30 });
    // A pooled connection is ready, so the claim's statement goes out in the store's next turn.
    await store.claim(randomUUID(), { owner, run: 'warm-up' });
    const deciding = claims.decide({ requestId: randomUUID(), deadline: soon() }, 'one');
    // The store sends its statement in the next turn, and the loop is held right after, long past the wait.
    setImmediate(() => holdLoop(300));
    await expect(deciding).resolves.toBe('run');
  });

  it('sweep claims older than the retention, and only those', async () => {
    const old = randomUUID();
    const recent = randomUUID();
    await Promise.all([store.claim(old, { owner: 'a', run: 'one' }), store.claim(recent, { owner: 'a', run: 'two' })]);
    await sqlPoolOf(ctx.services.db).query(`UPDATE completion_claims SET claimed_at = now() - interval '2 hours' WHERE request_id = $1`, [old]);
    let swept = 0;
    for (let n = await store.sweep(60 * 60 * 1000, 1000); n > 0; n = await store.sweep(60 * 60 * 1000, 1000)) swept += n;
    expect(swept).toBeGreaterThanOrEqual(1);
    expect(await claimRow(old)).toBeUndefined();
    expect(await claimRow(recent)).toBeDefined();
  });
});
