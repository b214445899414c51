import { Deadline } from '../../src/net/deadline';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('Deadline', () => {
  it('ends a call that sends nothing for the idle limit', () => {
    const deadline = new Deadline(new AbortController().signal, { idleMs: 30, callMs: 10_000 });
    jest.advanceTimersByTime(29);
    expect(deadline.timedOut).toBe(false);
    jest.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired).toBe('idle');
    expect(deadline.describe()).toBe('sent nothing for 30 ms');
    deadline.clear();
  });

  it('keeps a call that sends something before each idle limit, until the whole-call limit', () => {
    const deadline = new Deadline(new AbortController().signal, { idleMs: 60, callMs: 200 });
    for (let elapsed = 0; elapsed < 180; elapsed += 20) {
      jest.advanceTimersByTime(20);
      deadline.extend();
    }
    expect(deadline.timedOut).toBe(false);
    jest.advanceTimersByTime(20);
    expect(deadline.expired).toBe('call');
    expect(deadline.describe()).toBe('did not finish within 200 ms');
    deadline.clear();
  });

  it('follows the caller: an abort is not a timeout', () => {
    const caller = new AbortController();
    const deadline = new Deadline(caller.signal, { idleMs: 1000 });
    caller.abort();
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.timedOut).toBe(false);
    deadline.clear();
  });
});
