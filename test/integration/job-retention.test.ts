import { inKeptSample } from '../../src/queue/kept-jobs';
import { complete, eventually, isolatedSpace, userMessage, type IsolatedSpace } from '../helpers/completion-fixtures';
import { useSimulatedHarness } from '../helpers/completions';

/**
 * What Redis keeps of a completion's job once it ends (for bull-board): one finished job in
 * COMPLETION_JOBS_KEPT_ONE_IN (here 2), chosen by its request id, stays a while; the others are removed
 * as they complete. The privacy rules and the size rule hold inside the sample: at level 2 a kept job's
 * request is masked, level 3 keeps nothing, and a request over MAX_KEPT_BODY_BYTES is removed at once, so
 * a stream of 1 MiB bodies cannot fill Redis. Its log keeps it all.
 */
const ONE_IN = 2;
const env = useSimulatedHarness({ completionJobsKeptOneIn: ONE_IN });

/** Most requests a test sends looking for one in the sample (or out of it): each is one with odds 1/2. */
const MOST_TRIES = 20;

/** Sends requests until one whose request is (or is not) in the kept sample; answers its id. */
async function requestThatIs(inSample: boolean, space: IsolatedSpace, body: object): Promise<string> {
  for (let tries = 0; tries < MOST_TRIES; tries++) {
    const res = await complete(env.h, space.tenant, body);
    expect(res.status).toBe(200);
    const id = res.body.id as string;
    if (inKeptSample(id, ONE_IN) === inSample) return id;
  }
  throw new Error(`no request ${inSample ? 'in' : 'out of'} the sample in ${MOST_TRIES} tries`);
}

const queue = () => env.h.services.queues.completions;
/** A job's state once it has ended: `completed` if kept, `unknown` (gone) if removed. */
const endedStateOf = (id: string) =>
  eventually(async () => ((state) => (state === 'completed' || state === 'unknown' ? state : null))(await queue().getJobState(id)));
/** Gone for good: a kept job would be `completed` by then, and would stay. */
const expectRemoved = async (id: string) => {
  expect(await endedStateOf(id)).toBe('unknown');
  expect(await queue().getJob(id)).toBeUndefined();
};

describe('finished completion jobs', () => {
  it('keeps those whose request is in the sample and removes the others as they complete', async () => {
    const space = await isolatedSpace(env.h, { models: [{ name: 'kept' }] });
    const kept = await requestThatIs(true, space, { messages: userMessage('Say hi to the retention test') });
    const removed = await requestThatIs(false, space, { messages: userMessage('Say hi to the retention test') });
    expect(await endedStateOf(kept)).toBe('completed');
    expect(JSON.stringify((await queue().getJob(kept))?.data)).toContain('Say hi to the retention test');
    await expectRemoved(removed);
  });

  it('drops a large request once it ends, even in the sample', async () => {
    const space = await isolatedSpace(env.h, { models: [{ name: 'kept' }] });
    const large = await requestThatIs(true, space, { messages: userMessage(`Summarise: ${'word '.repeat(20_000)}`), max_tokens: 4 });
    await expectRemoved(large);
    const log = await env.h.services.db.log.findUnique({ where: { id: large }, select: { prompt: true } });
    expect(log?.prompt?.length).toBeGreaterThan(100_000);
  });

  it('at privacy level 2 keeps a sampled job masked and removes the others unmasked, with nothing left of them', async () => {
    const space = await isolatedSpace(env.h, { models: [{ name: 'kept', gdpr: true }], update: { policies: { privacy_level: 2 } } });
    const kept = await requestThatIs(true, space, { messages: userMessage('My secret') });
    const removed = await requestThatIs(false, space, { messages: userMessage('My secret') });
    expect(await endedStateOf(kept)).toBe('completed');
    const data = JSON.stringify((await queue().getJob(kept))?.data);
    expect(data).toContain('[masked]');
    expect(data).not.toContain('My secret');
    await expectRemoved(removed);
  });

  it('at privacy level 3 keeps nothing, even in the sample', async () => {
    const space = await isolatedSpace(env.h, { models: [{ name: 'kept', gdpr: true }], update: { policies: { privacy_level: 3 } } });
    await expectRemoved(await requestThatIs(true, space, { messages: userMessage('My secret') }));
  });
});
