import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'bullmq';
import request from 'supertest';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { QUEUE_NAMES } from '../../src/queue/names';
import { startWorkers } from '../../src/app/start-workers';
import { useSimulatedHarness, type CompletionsHarness } from '../helpers/completions';
import { complete, eventually, isolatedSpace, userMessage } from '../helpers/completion-fixtures';
import { createTestContext, type Tenant } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { makeDocxBomb } from '../fixtures/space-files/make-documents';

/**
 * Hostile Space files against the workers as a worker process runs them (startWorkers: completions and
 * space-files in one process): each file is read in a child process bounded in memory and time, and
 * this process, its event loop and its completions carry on.
 */

/** The configuration with the given ingestion limits, no embeddings, and short job locks so a stall shows fast. */
function withIngestion(limits: { ingestHeapMb?: number; ingestTimeoutMs?: number }): Partial<Config> {
  const base = loadConfig();
  return {
    jobLockMs: 1000,
    jobStalledCheckMs: 200,
    plugins: { ...base.plugins, spaceSearch: { ...base.plugins.spaceSearch, embeddings: null, ...limits } },
  };
}

interface FileBody {
  id: string;
  status: string;
  error: string | null;
  chunk_count: number;
}

function upload(h: { app: CompletionsHarness['app'] }, tenant: Tenant, file: { name: string; bytes: Buffer }) {
  return request(h.app).post(`/v1/apps/${tenant.app_id}/files`).set(tenant.auth).attach('file', file.bytes, file.name).expect(201);
}

async function fileOf(h: { app: CompletionsHarness['app'] }, tenant: Tenant, id: string): Promise<FileBody> {
  return (await request(h.app).get(`/v1/apps/${tenant.app_id}/files/${id}`).set(tenant.auth).expect(200)).body as FileBody;
}

const settledFile = (h: CompletionsHarness, tenant: Tenant, id: string) =>
  eventually(async () => {
    const file = await fileOf(h, tenant, id);
    return file.status === 'ready' || file.status === 'failed' ? file : null;
  }, 60_000);

/**
 * Uploads `bytes` and sends completions one after another until the file is ready or failed: the
 * completions' statuses, the file, and the longest this event loop was blocked meanwhile (ms).
 */
async function ingestDuringCompletions(h: CompletionsHarness, name: string, bytes: Buffer) {
  const { tenant } = await isolatedSpace(h, { models: [{ name: 'steady' }] });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const { id } = (await upload(h, tenant, { name, bytes })).body as FileBody;
  const statuses: number[] = [];
  let file: FileBody = await fileOf(h, tenant, id);
  while (file.status !== 'ready' && file.status !== 'failed') {
    statuses.push((await complete(h, tenant, { messages: userMessage('Is the harbour open?') })).status);
    file = await fileOf(h, tenant, id);
  }
  statuses.push((await complete(h, tenant, { messages: userMessage('And now?') })).status);
  delay.disable();
  return { statuses, file, maxDelayMs: delay.max / 1e6 };
}

describe('hostile files in a worker process that also serves completions', () => {
  const env = useSimulatedHarness(withIngestion({ ingestHeapMb: 64 }));

  it('ingests the 60,000 `{}` lines file (it killed workers) in bounds, completions answering all along', async () => {
    const { statuses, file, maxDelayMs } = await ingestDuringCompletions(env.h, 'braces.txt', Buffer.from('{}\n'.repeat(60_000)));
    expect(file).toMatchObject({ status: 'ready', error: null, chunk_count: 212 });
    expect(statuses.length).toBeGreaterThan(1);
    expect(statuses.every((status) => status === 200)).toBe(true);
    // The file is read in another process: nothing here holds the loop near the 1 s job lock.
    expect(maxDelayMs).toBeLessThan(1000);
  });

  it('fails a DOCX bomb past the 64 MiB heap with the reason, completions answering all along', async () => {
    const { statuses, file, maxDelayMs } = await ingestDuringCompletions(env.h, 'bomb.docx', makeDocxBomb(1_000_000));
    expect(file).toMatchObject({
      status: 'failed',
      chunk_count: 0,
      error: 'Text extraction failed: reading the file needed more than the 64 MiB of memory allowed',
    });
    expect(statuses.length).toBeGreaterThan(1);
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(maxDelayMs).toBeLessThan(1000);
    // Failed once, not retried: the reading is what it is.
    const job = await env.h.services.queues.spaceFiles.getJob(file.id);
    expect(await job?.getState()).toBe('failed');
    expect(job?.attemptsMade).toBe(1);
  });
});

describe('a file past the ingestion deadline', () => {
  const env = useSimulatedHarness(withIngestion({ ingestTimeoutMs: 20 }));

  it('fails with the reason, the reader killed', async () => {
    const tenant = await env.h.tenant();
    const { id } = (await upload(env.h, tenant, { name: 'notes.txt', bytes: Buffer.from('The lighthouse keeper logs every passing ship.') })).body as FileBody;
    expect(await settledFile(env.h, tenant, id)).toMatchObject({
      status: 'failed',
      error: 'Text extraction failed: reading the file took longer than the 20 ms allowed',
    });
  });
});

describe('a space-files job whose worker stalls', () => {
  it('fails after the first stall, is not handed to the next worker, and the file says why', async () => {
    const ctx = createTestContext({ ...withIngestion({}), redisPrefix: `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}` });
    const { redisPrefix } = ctx.services.config;
    // A worker (with the service's lock settings) that takes the job and never finishes it, then vanishes
    // without a word, as a killed or hung process would.
    const { jobLockMs, jobStalledCheckMs } = ctx.services.config;
    const doomed = new Worker(QUEUE_NAMES.spaceFiles, () => new Promise(() => undefined), {
      connection: ctx.services.queueConnection,
      prefix: redisPrefix,
      lockDuration: jobLockMs,
      stalledInterval: jobStalledCheckMs,
    });
    const workers: { close(): Promise<void> }[] = [];
    try {
      const tenant = await ctx.tenant();
      const { id } = (await upload(ctx, tenant, { name: 'notes.txt', bytes: Buffer.from('Tides are high at noon.') })).body as FileBody;
      await eventually(async () => ((await ctx.services.queues.spaceFiles.getActiveCount()) === 1 ? true : null));
      await doomed.close(true);
      workers.push(startWorkers(ctx.services));
      const file = await eventually(async () => {
        const row = await ctx.services.db.spaceFile.findUniqueOrThrow({ where: { id } });
        return row.status === 'failed' ? row : null;
      });
      expect(file).toMatchObject({ chunk_count: 0, error: 'Ingestion stopped: the worker reading the file stalled or died, and the file is not tried again.' });
      expect(await fileOf(ctx, tenant, id)).toMatchObject({ status: 'failed', error: file.error });
      // In the queue's failed list with BullMQ's reason, as bull-board shows it.
      const failed = await ctx.services.queues.spaceFiles.getFailed();
      expect(failed.map((job) => [job.id, job.failedReason])).toEqual([[id, 'job stalled more than allowable limit']]);
    } finally {
      await Promise.all(workers.map((running) => running.close()));
      await ctx.close();
    }
  });
});
