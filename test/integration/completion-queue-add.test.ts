import { randomUUID } from 'node:crypto';
import { completionJobOptions } from '../../src/queue/kept-jobs';
import type { CompletionJob } from '../../src/queue/payloads';
import { decidedJobParts } from '../helpers/completion-job';
import { createTestContext, type TestContext } from '../helpers/test-context';

/**
 * Queueing a completion's job within its time (ENQUEUE_TIMEOUT_MS for the API): the time is the process's
 * own (src/domain/loop-timer.ts), so an add Redis answered while the event loop was held past it counts as
 * queued, where a wall-clock timer, whose phase comes before the loop reads the answer, gave it up (a 503).
 */
let ctx: TestContext;

beforeAll(() => {
  ctx = createTestContext();
});
afterAll(() => ctx.close());

function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy: a long synchronous task, or a garbage collection.
  }
}

function job(): CompletionJob {
  const now = Date.now();
  return {
    requestId: ctx.services.queues.completions.newRequestId(),
    orgId: randomUUID(),
    appId: randomUUID(),
    spaceStamp: '',
    idpId: 'someone',
    ...decidedJobParts({ messages: [{ role: 'user', content: 'Hi' }] }),
    deadline: now + 60_000,
    receivedAt: now,
  };
}

const optionsOf = ({ requestId }: CompletionJob) => completionJobOptions({ requestId, keptJob: 'none', keptOneIn: 1 });

describe('a completion job queued within its time', () => {
  it('counts as queued when Redis answered while the loop was held past the time', async () => {
    const queue = ctx.services.queues.completions;
    const first = job();
    // The queue's connection and scripts are ready, so the add goes out at once.
    expect(await queue.addWithin(first, optionsOf(first), { timeoutMs: 5000, tooLate: () => undefined })).toBe(true);
    const held = job();
    const tooLate: string[] = [];
    const adding = queue.addWithin(held, optionsOf(held), {
      timeoutMs: 30,
      tooLate: (id) => tooLate.push(id),
    });
    setImmediate(() => holdLoop(300));
    expect(await adding).toBe(true);
    expect(await queue.getJobState(held.requestId)).toBe('waiting');
    expect(tooLate).toEqual([]);
    await Promise.all([first, held].map(async ({ requestId }) => (await queue.getJob(requestId))?.remove()));
  });
});
