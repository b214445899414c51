import { randomUUID } from 'node:crypto';
import { Queue, Worker, type JobsOptions } from 'bullmq';
import IORedis from 'ioredis';
import { parseArgs } from 'node:util';
import { completionJobOptions } from '../../src/queue/kept-jobs';
import { privateRedis } from './private-redis';
import { commandsSince, readCommands } from './redis-commands';

/**
 * `npm run bench:kept-jobs`: what keeping finished completion jobs in Redis (so that operators see them
 * in bull-board) costs per completion, against removing each job as it finishes, and against the
 * service's sample (one job in `--one-in` kept, COMPLETION_JOBS_KEPT_ONE_IN). The same BullMQ calls as a
 * completion (add with the request id as job id, take, finish) with a job of a completion's size, through
 * one queue, 64 jobs in flight; the retentions alternate (A B C A B C ...) so the machine's noise falls on
 * all alike. Reported per job: Redis commands (INFO commandstats: every command, and every command a
 * script runs), Redis's CPU (INFO cpu), this process's CPU (producer and worker), and Redis memory held by
 * the kept jobs. Redis is a private redis-server started for the run (as the service's own is configured:
 * no persistence), so nothing else's commands are counted. Options: --jobs N per round (default 20000),
 * --rounds N (default 3), --one-in N (default 10).
 */
const { values: args } = parseArgs({
  options: { jobs: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' }, 'one-in': { type: 'string', default: '10' } },
});
const say = (text: string) => process.stdout.write(`${text}\n`);
const oneIn = Number(args['one-in']);

/** A job's retention at privacy level 1, as the API decides it (completionJobOptions). */
type RetentionOf = (requestId: string) => Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'>;

/** What the service kept before (every finished job), what it keeps now (a sample), and removing them all. */
const RETENTIONS: { name: string; of: RetentionOf }[] = [
  { name: 'kept (500 jobs, 1 hour; before)', of: (requestId) => completionJobOptions({ requestId, keptJob: 'whole', keptOneIn: 1 }) },
  { name: 'removed at once', of: () => ({ removeOnComplete: true, removeOnFail: true }) },
  { name: `one in ${oneIn} kept (the service now)`, of: (requestId) => completionJobOptions({ requestId, keptJob: 'whole', keptOneIn: oneIn }) },
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

async function redisMemoryBytes(redis: IORedis): Promise<number> {
  return Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? 0);
}

const ownCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

interface Round {
  commandsPerJob: number;
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
  const [before, ownBefore] = [await readCommands([url]), ownCpuMs()];
  let sent = 0;
  const sender = async () => {
    while (sent < jobs) {
      sent += 1;
      const requestId = randomUUID();
      await queue.add('completion', { ...JOB_DATA, requestId, receivedAt: Date.now() }, { jobId: requestId, attempts: 1, ...retention.of(requestId) });
      // 64 in flight: wait while the worker is behind.
      while (sent - done > 64) await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all(Array.from({ length: 8 }, sender));
  await finished;
  const [after, ownAfter] = [await readCommands([url]), ownCpuMs()];
  const heldBytes = (await redisMemoryBytes(redis)) - memoryBefore;
  await worker.close();
  await queue.close();
  const redisMs = (after[0]?.cpuMs ?? 0) - (before[0]?.cpuMs ?? 0);
  const commandsPerJob = commandsSince(before, after, { completions: jobs, idleCommands: 0 }).perCompletion;
  return { commandsPerJob, redisUsPerJob: (redisMs * 1000) / jobs, clientUsPerJob: ((ownAfter - ownBefore) * 1000) / jobs, heldBytes };
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
        say(
          `  round ${i + 1} ${retention.name}: ${measured.commandsPerJob.toFixed(2)} commands/job, Redis ${measured.redisUsPerJob.toFixed(1)} µs/job, client ${measured.clientUsPerJob.toFixed(1)} µs/job, held ${(measured.heldBytes / 1024).toFixed(0)} KiB`,
        );
      }
    }
  } finally {
    redis.disconnect();
    server.stop();
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  say(`\n| retention | Redis commands per job | Redis µs per job | producer + worker µs per job | Redis memory held |\n| --- | --- | --- | --- | --- |`);
  for (const [name, measured] of results) {
    say(
      `| ${name} | ${median(measured.map((m) => m.commandsPerJob)).toFixed(2)} | ${median(measured.map((m) => m.redisUsPerJob)).toFixed(1)} | ${median(measured.map((m) => m.clientUsPerJob)).toFixed(1)} | ${(median(measured.map((m) => m.heldBytes)) / 1024).toFixed(0)} KiB |`,
    );
  }
}

main().catch((err: unknown) => {
  say(`kept-jobs failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exitCode = 1;
});
