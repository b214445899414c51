import { RetryBudget } from '../../src/resilience/retry-budget';

function budgetAt(start: number, options: { ratio: number; minRetries: number }) {
  let now = start;
  const budget = new RetryBudget({ ...options, now: () => now });
  return { budget, advance: (ms: number) => (now += ms) };
}

describe('RetryBudget', () => {
  it('always allows the minimum, however few the requests', () => {
    const { budget } = budgetAt(1_000_000, { ratio: 0.2, minRetries: 3 });
    budget.noteRequest();
    expect([budget.tryRetry(), budget.tryRetry(), budget.tryRetry(), budget.tryRetry()]).toEqual([true, true, true, false]);
  });

  it('allows retries up to the ratio of the requests in the window', () => {
    const { budget } = budgetAt(1_000_000, { ratio: 0.2, minRetries: 0 });
    for (let i = 0; i < 100; i += 1) budget.noteRequest();
    let allowed = 0;
    for (let i = 0; i < 50; i += 1) if (budget.tryRetry()) allowed += 1;
    expect(allowed).toBe(20);
  });

  it('forgets requests and retries older than ten seconds', () => {
    const { budget, advance } = budgetAt(1_000_000, { ratio: 0.5, minRetries: 0 });
    budget.noteRequest();
    budget.noteRequest();
    expect(budget.tryRetry()).toBe(true);
    expect(budget.tryRetry()).toBe(false);
    advance(10_500);
    expect(budget.tryRetry()).toBe(false);
    budget.noteRequest();
    budget.noteRequest();
    expect(budget.tryRetry()).toBe(true);
  });
});
