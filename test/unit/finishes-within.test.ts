import { finishesWithin } from '../../src/domain/finishes-within';

describe('finishesWithin', () => {
  it('answers true when the work fulfils in time', async () => {
    await expect(finishesWithin(Promise.resolve('done'), 1000)).resolves.toBe(true);
  });

  it('answers false after the time, and the work goes on', async () => {
    let finish = () => undefined as void;
    const work = new Promise<void>((resolve) => (finish = resolve));
    await expect(finishesWithin(work, 10)).resolves.toBe(false);
    finish();
    await expect(work).resolves.toBeUndefined();
  });

  it('rejects when the work rejects first', async () => {
    await expect(finishesWithin(Promise.reject(new Error('lost')), 1000)).rejects.toThrow('lost');
  });

  it('leaves no timer behind once the work is done', async () => {
    jest.useFakeTimers();
    try {
      const answer = finishesWithin(Promise.resolve(), 60_000);
      await Promise.resolve();
      await Promise.resolve();
      expect(jest.getTimerCount()).toBe(0);
      await expect(answer).resolves.toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('swallows a rejection that comes after the time', async () => {
    let fail = (_err: Error) => undefined as void;
    const work = new Promise<void>((_resolve, reject) => (fail = reject));
    await expect(finishesWithin(work, 5)).resolves.toBe(false);
    fail(new Error('late'));
    await expect(work).rejects.toThrow('late');
  });
});
