import type { Queue } from 'bullmq';
import type { BatchLineJob } from '../../src/queue/payloads';
import { LineFeeder, lineJobId } from '../../src/services/batches/line-feeder';
import type { BatchLineRepository } from '../../src/store/batch-lines';

/**
 * How the coordinator's recovery hands over lines whose jobs Redis forgot: every line in flight without
 * a job at once, queued or running (a running line's new job waits on the line's claim held by its live
 * run, so the line is still answered once: test/integration/batches-redis-loss.test.ts), and a failed
 * job is retried.
 */
const BATCH = 'batch_test';

function feederOver(inFlight: number[], jobs: Record<string, { failed: boolean }>) {
  const added: number[] = [];
  const retried: string[] = [];
  const lines = { inFlight: async () => inFlight } as unknown as BatchLineRepository;
  const queue = {
    getJob: async (id: string) => {
      const job = jobs[id];
      return job && { isFailed: async () => job.failed, retry: async () => void retried.push(id) };
    },
    addBulk: async (bulk: { data: BatchLineJob }[]) => void added.push(...bulk.map((entry) => entry.data.line)),
  } as unknown as Queue<BatchLineJob>;
  return { feeder: new LineFeeder({ lines, queue, spaceConcurrency: 8 }), added, retried };
}

describe('LineFeeder.recover', () => {
  it('hands every line in flight without a job over at once, retries a failed job, and leaves a live one alone', async () => {
    const { feeder, added, retried } = feederOver([1, 2, 3, 4], { [lineJobId(BATCH, 2)]: { failed: true }, [lineJobId(BATCH, 3)]: { failed: false } });
    await feeder.recover(BATCH);
    expect(added).toEqual([1, 4]);
    expect(retried).toEqual([lineJobId(BATCH, 2)]);
  });

  it('adds nothing when every line in flight has its job', async () => {
    const { feeder, added } = feederOver([5], { [lineJobId(BATCH, 5)]: { failed: false } });
    await feeder.recover(BATCH);
    expect(added).toEqual([]);
  });
});
