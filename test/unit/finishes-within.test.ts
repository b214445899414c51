import { readFile } from 'node:fs/promises';
import { finishesWithin, finishesWithinLoopTime } from '../../src/domain/finishes-within';

/** What a long synchronous task or garbage collection does to the event loop. */
function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy.
  }
}

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

  it('counts wall-clock time: work done while the loop was held past the time comes too late', async () => {
    const read = readFile(__filename);
    const answer = finishesWithin(read, 20);
    holdLoop(150);
    await expect(answer).resolves.toBe(false);
  });
});

describe('finishesWithinLoopTime', () => {
  it('counts the process’s own time: work done while the loop was held past the time is in time', async () => {
    const read = readFile(__filename);
    const answer = finishesWithinLoopTime(read, 20);
    holdLoop(150);
    await expect(answer).resolves.toBe(true);
  });

  it('answers false when the work does not finish, and rejects when it fails first', async () => {
    await expect(finishesWithinLoopTime(new Promise(() => undefined), 20)).resolves.toBe(false);
    await expect(finishesWithinLoopTime(Promise.reject(new Error('lost')), 1000)).rejects.toThrow('lost');
  });
});
