import { complete, eventually, isolatedSpace, userMessage } from '../helpers/completion-fixtures';
import { useSimulatedHarness } from '../helpers/completions';

/**
 * What Redis keeps of a completion's job once it ends (for bull-board): a small request's job stays
 * for a while; a request over MAX_KEPT_BODY_BYTES is removed at once, so a stream of 1 MiB bodies
 * cannot fill Redis. Its log keeps it all.
 */
const env = useSimulatedHarness();

describe('finished completion jobs', () => {
  it('keeps a small request for bull-board and drops a large one once it ends', async () => {
    const { tenant } = await isolatedSpace(env.h, { models: [{ name: 'kept' }] });
    const small = await complete(env.h, tenant, { messages: userMessage('Hi') });
    const large = await complete(env.h, tenant, { messages: userMessage(`Summarise: ${'word '.repeat(20_000)}`), max_tokens: 4 });
    expect([small.status, large.status]).toEqual([200, 200]);
    const queue = env.h.services.queues.completions;
    const smallId = small.headers['x-switchyard-log-id'] as string;
    const largeId = large.headers['x-switchyard-log-id'] as string;
    await eventually(async () => ((await queue.getJobState(smallId)) === 'completed' ? true : null));
    await eventually(async () => ((await queue.getJob(largeId)) === undefined ? true : null));
    const log = await env.h.services.db.log.findUnique({ where: { id: largeId }, select: { prompt: true } });
    expect(log?.prompt?.length).toBeGreaterThan(100_000);
  });
});
