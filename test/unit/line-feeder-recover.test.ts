import type { Queue } from 'bullmq';
import type { BatchLineState } from '../../src/generated/prisma/client';
import type { BatchLineJob } from '../../src/queue/payloads';
import { LineFeeder, lineJobId } from '../../src/services/batches/line-feeder';
import type { BatchLineRepository, SettledLine } from '../../src/store/batch-lines';

/**
 * How the coordinator's recovery hands over lines whose jobs Redis forgot: a queued line at once; a
 * running one (most likely still running in a live worker) only once it has been jobless longer than a
 * run can last, so a line whose worker is alive is never run twice.
 */
const BATCH = 'batch_test';
const GRACE_MS = 60_000;

function feederOver(states: Record<number, BatchLineState>, jobs: Record<string, { failed: boolean }>) {
  const added: number[] = [];
  const retried: string[] = [];
  const lines = {
    inFlight: async () => Object.keys(states).map(Number),
    page: async (_batch: string, after: number, size: number): Promise<SettledLine[]> =>
      Object.entries(states)
        .map(([line, state]) => ({ line: Number(line), custom_id: `c${line}`, state, request_id: null, outcome: null }))
        .filter((row) => row.line > after)
        .slice(0, size),
  } as unknown as BatchLineRepository;
  const queue = {
    getJob: async (id: string) => {
      const job = jobs[id];
      return job && { isFailed: async () => job.failed, retry: async () => void retried.push(id) };
    },
    addBulk: async (bulk: { data: BatchLineJob }[]) => void added.push(...bulk.map((entry) => entry.data.line)),
  } as unknown as Queue<BatchLineJob>;
  return { feeder: new LineFeeder({ lines, queue, spaceConcurrency: 8, runningGraceMs: GRACE_MS }), added, retried };
}

describe('LineFeeder.recover', () => {
  it('hands a queued line without a job over at once, and retries a failed job', async () => {
    const { feeder, added, retried } = feederOver({ 1: 'queued', 2: 'queued', 3: 'running' }, { [lineJobId(BATCH, 2)]: { failed: true }, [lineJobId(BATCH, 3)]: { failed: false } });
    await feeder.recover(BATCH, 0);
    expect(added).toEqual([1]);
    expect(retried).toEqual([lineJobId(BATCH, 2)]);
  });

  it('hands a running line without a job over only once it has been jobless for the grace', async () => {
    const { feeder, added } = feederOver({ 4: 'running', 5: 'running' }, {});
    await feeder.recover(BATCH, 1000);
    await feeder.recover(BATCH, 1000 + GRACE_MS - 1);
    expect(added).toEqual([]);
    await feeder.recover(BATCH, 1000 + GRACE_MS);
    expect(added).toEqual([4, 5]);
  });

  it('starts counting again for a line that got a job or finished meanwhile', async () => {
    const states: Record<number, BatchLineState> = { 6: 'running' };
    const { feeder, added } = feederOver(states, {});
    await feeder.recover(BATCH, 0);
    delete states[6];
    await feeder.recover(BATCH, GRACE_MS / 2);
    states[6] = 'running';
    await feeder.recover(BATCH, GRACE_MS);
    expect(added).toEqual([]);
    await feeder.recover(BATCH, 2 * GRACE_MS);
    expect(added).toEqual([6]);
  });
});
