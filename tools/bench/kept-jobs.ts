import { Queue, Worker, type JobsOptions } from 'bullmq';
import IORedis from 'ioredis';
import { parseArgs } from 'node:util';
import { privateRedis } from './private-redis';

/**
 * `npm run bench:kept-jobs`: what keeping finished completion jobs in Redis (so that operators see them
 * in bull-board) costs per completion, against removing each job as it finishes. The same BullMQ calls
 * as a completion (add, take, finish) with a job of a completion's size, through one queue, 64 jobs in
 * flight; the retentions alternate (A B A B ...) so the machine's noise falls on both alike. Reported per
 * job: Redis's CPU (INFO cpu), this process's CPU (producer and worker), and Redis memory held by the kept
 * jobs. Redis is a private redis-server started for the run (as the service's own is configured: no
 * persistence), so nothing else's commands are counted. Options: --jobs N per round (default 20000),
 * --rounds N (default 3).
 */
const { values: args } = parseArgs({ options: { jobs: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' } } });
const say = (text: string) => process.stdout.write(`${text}\n`);

/** What the service keeps (intake/completion-gateway.ts) and the alternative. */
const RETENTIONS: { name: string; options: Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'> }[] = [
  { name: 'kept (500 jobs, 1 hour)', options: { removeOnComplete: { age: 3600, count: 500 }, removeOnFail: { age: 24 * 3600, count: 1000 } } },
  { name: 'removed at once', options: { removeOnComplete: true, removeOnFail: true } },
];

/** A completion job's data as the API queues it (about 600 bytes). */
const JOB_DATA = {
  requestId: '1ae522f6-aef4-49c6-b72c-8a1b75d41ab2',
  orgId: 'a7dd182a-08f5-4f31-bf91-5ddef76ce6af',
  appId: 'f23a0d38-ff68-4c90-bf19-971a2770c8a1',
  spaceStamp: '',
  idpId: 'owner@bench',
  request: { messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], stream: false },
  headerFlags: {},
  replyTo: 'bench:replies:98d26a99-21b8-404a-aa98-7555e81a212b',
  deadline: 0,
  receivedAt: 0,
  httpRequestId: 'b978b8be-a409-4232-94b0-e2f7e48e5904',
};

async function redisCpuMs(redis: IORedis): Promise<number> {
  const info = await redis.info('cpu');
  const read = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return (read('used_cpu_user') + read('used_cpu_sys')) * 1000;
}

async function redisMemoryBytes(redis: IORedis): Promise<number> {
  return Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? 0);
}

const ownCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

interface Round {
  redisUsPerJob: number;
  clientUsPerJob: number;
  heldBytes: number;
}

async function round(retention: (typeof RETENTIONS)[number], { jobs, redis, url }: { jobs: number; redis: IORedis; url: string }): Promise<Round> {
  await redis.flushall();
  const prefix = 'keptjobs';
  const connection = { url, maxRetriesPerRequest: null };
  const queue = new Queue('completions', { connection, prefix });
  let done = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const worker = new Worker('completions', async () => ({ ok: true }), { connection, prefix, concurrency: 256 });
  worker.on('completed', () => {
    done += 1;
    if (done === jobs) finish();
  });
  await worker.waitUntilReady();
  const memoryBefore = await redisMemoryBytes(redis);
  const [redisBefore, ownBefore] = [await redisCpuMs(redis), ownCpuMs()];
  let sent = 0;
  const sender = async () => {
    while (sent < jobs) {
      sent += 1;
      await queue.add('completion', { ...JOB_DATA, receivedAt: Date.now() }, retention.options);
      // 64 in flight: wait while the worker is behind.
      while (sent - done > 64) await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all(Array.from({ length: 8 }, sender));
  await finished;
  const [redisAfter, ownAfter] = [await redisCpuMs(redis), ownCpuMs()];
  const heldBytes = (await redisMemoryBytes(redis)) - memoryBefore;
  await worker.close();
  await queue.close();
  return { redisUsPerJob: ((redisAfter - redisBefore) * 1000) / jobs, clientUsPerJob: ((ownAfter - ownBefore) * 1000) / jobs, heldBytes };
}

async function main(): Promise<void> {
  const jobs = Number(args.jobs);
  const rounds = Number(args.rounds);
  const server = await privateRedis();
  const redis = new IORedis(server.url);
  const results = new Map<string, Round[]>(RETENTIONS.map((r) => [r.name, []]));
  try {
    for (let i = 0; i < rounds; i += 1) {
      for (const retention of RETENTIONS) {
        const measured = await round(retention, { jobs, redis, url: server.url });
        results.get(retention.name)?.push(measured);
        say(`  round ${i + 1} ${retention.name}: Redis ${measured.redisUsPerJob.toFixed(1)} µs/job, client ${measured.clientUsPerJob.toFixed(1)} µs/job, held ${(measured.heldBytes / 1024).toFixed(0)} KiB`);
      }
    }
  } finally {
    redis.disconnect();
    server.stop();
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  say(`\n| retention | Redis µs per job | producer + worker µs per job | Redis memory held |\n| --- | --- | --- | --- |`);
  for (const [name, measured] of results) {
    say(`| ${name} | ${median(measured.map((m) => m.redisUsPerJob)).toFixed(1)} | ${median(measured.map((m) => m.clientUsPerJob)).toFixed(1)} | ${(median(measured.map((m) => m.heldBytes)) / 1024).toFixed(0)} KiB |`);
  }
}

main().catch((err: unknown) => {
  say(`kept-jobs failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exitCode = 1;
});
