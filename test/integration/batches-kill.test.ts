import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchLine, chatBody, createBatch, fileLines, readBatch, uploadInput, waitForBatch } from '../helpers/batch-fixtures';
import { testBatchConfig } from '../helpers/batch-config';
import { callsTo, isolatedSpace, sleep } from '../helpers/completion-fixtures';
import type { CompletionsHarness } from '../helpers/completions';
import { createTestContext, type TestContext } from '../helpers/test-context';
import { uniqueSuffix } from '../helpers/test-database';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * Real worker processes (`SWITCHYARD_ROLE=workers`, from source) behind an in-process API: the worker
 * holding a batch's coordinator and some of its lines is killed with SIGKILL mid-batch, another finishes it.
 */
const ROOT = join(__dirname, '..', '..');
const LINES = 48;
const CAP = 4;
/** A line's upstream time, in ms: the batch must outlast starting a second worker from source on a loaded machine (~LINES / CAP * SLOW_MS = 24 s). */
const SLOW_MS = 2000;

let sim: Simulator;
let api: TestContext;
const prefix = `${process.env.REDIS_PREFIX ?? 'sytest'}_${uniqueSuffix()}`;
const storageDir = mkdtempSync(join(tmpdir(), 'switchyard-files-'));
const workers: ChildProcess[] = [];

function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      SWITCHYARD_ROLE: 'workers',
      REDIS_PREFIX: prefix,
      OPENAI_API_KEY: 'sim-key',
      OPENAI_BASE_URL: sim.baseUrls.openai,
      FILE_STORAGE: 'local',
      FILE_STORAGE_DIR: storageDir,
      BATCH_SPACE_CONCURRENCY: String(CAP),
      LOG_LEVEL: 'silent',
    },
    stdio: 'ignore',
  });
  workers.push(child);
  return child;
}

async function workersConnected(count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await api.services.queues.batchLines.getWorkersCount()) < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} workers after 30 s`);
    await sleep(100);
  }
}

beforeAll(async () => {
  sim = await startSimulator();
  api = createTestContext({ redisPrefix: prefix, batches: testBatchConfig({ fileStore: { kind: 'local', dir: storageDir } }) });
});
afterAll(async () => {
  for (const child of workers) child.kill('SIGKILL');
  await api.close();
  await sim.close();
});

describe('a worker killed with kill -9 in the middle of a batch', () => {
  it('has the batch finished by another worker: no line lost, none twice, in input order', async () => {
    const harness = { ...api, workers: { close: async () => undefined } } as CompletionsHarness;
    const { tenant, models } = await isolatedSpace(harness, { models: [{ name: 'slow', namespace: `sim-slow-${SLOW_MS}` }] });
    const doomed = startWorkerProcess();
    await workersConnected(1);
    const input = Array.from({ length: LINES }, (_, i) => batchLine(`req-${i}`, chatBody('slow', `question ${i}`)));
    const batch = await createBatch(api.app, tenant, await uploadInput(api.app, tenant, input));
    // The doomed worker holds the coordinator (it is the only worker) and, soon, lines in flight.
    const deadline = Date.now() + 30_000;
    while (((await readBatch(api.app, tenant, batch.id)).request_counts?.completed ?? 0) < CAP) {
      if (Date.now() > deadline) throw new Error('the doomed worker made no progress');
      await sleep(50);
    }
    startWorkerProcess();
    await workersConnected(2);
    expect((await readBatch(api.app, tenant, batch.id)).status).toBe('in_progress');
    doomed.kill('SIGKILL');

    const done = await waitForBatch(() => readBatch(api.app, tenant, batch.id), { timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: LINES, completed: LINES, failed: 0 }, error_file_id: null });
    const output = await fileLines(api.app, tenant, done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(Array.from({ length: LINES }, (_, i) => `req-${i}`));
    expect(output.every((line) => (line.response as { status_code: number }).status_code === 200)).toBe(true);
    // Lines cut off by the kill were called again; every other line exactly once.
    const calls = callsTo(sim, models.slow);
    expect(calls.length).toBeGreaterThanOrEqual(LINES);
    expect(calls.length).toBeLessThanOrEqual(LINES + CAP);
  }, 120_000);
});
