import { periodic } from '../../src/domain/periodic';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('periodic', () => {
  it('runs a pass every interval, never two at once, tells a failed timed pass to onError, and stops', async () => {
    let running = 0;
    let most = 0;
    let passes = 0;
    const errors: unknown[] = [];
    const work = periodic(
      10,
      async () => {
        running += 1;
        most = Math.max(most, running);
        passes += 1;
        await sleep(35);
        running -= 1;
        if (passes === 1) throw new Error('first pass failed');
      },
      (err) => errors.push(err),
    );
    await sleep(150);
    work.stop();
    const after = passes;
    await sleep(60);
    expect(most).toBe(1);
    expect(after).toBeGreaterThanOrEqual(2);
    expect(passes).toBeLessThanOrEqual(after + 1);
    expect(errors).toHaveLength(1);
  });

  it('joins the pass under way when asked to run now', async () => {
    let passes = 0;
    const work = periodic(
      60_000,
      async () => {
        passes += 1;
        await sleep(20);
      },
      () => undefined,
    );
    await Promise.all([work.now(), work.now()]);
    work.stop();
    expect(passes).toBe(1);
  });
});
