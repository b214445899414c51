import { RetryBudget } from '../../src/resilience/retry-budget';

function budgetAt(start: number, options: { ratio: number; minRetries: number }) {
  let now = start;
  const budget = new RetryBudget({ ...options, now: () => now });
  return { budget, advance: (ms: number) => (now += ms) };
}

const times = (count: number, record: () => void) => Array.from({ length: count }, record);

describe('RetryBudget', () => {
  it('always tolerates the minimum of failures, however few the calls', () => {
    const { budget } = budgetAt(1_000_000, { ratio: 0.2, minRetries: 3 });
    times(3, () => budget.record('a', true));
    expect(budget.allows('a')).toBe(true);
    budget.record('a', true);
    expect(budget.allows('a')).toBe(false);
  });

  it('tolerates failures up to the ratio of the model’s calls in the window', () => {
    const { budget } = budgetAt(1_000_000, { ratio: 0.2, minRetries: 0 });
    times(80, () => budget.record('a', false));
    times(20, () => budget.record('a', true));
    expect(budget.allows('a')).toBe(true);
    budget.record('a', true);
    expect(budget.allows('a')).toBe(false);
  });

  it('is spent by the model that fails, not by the others', () => {
    const { budget } = budgetAt(1_000_000, { ratio: 0.2, minRetries: 2 });
    times(10, () => budget.record('dead', true));
    times(10, () => budget.record('healthy', false));
    expect(budget.allows('dead')).toBe(false);
    expect(budget.allows('healthy')).toBe(true);
    expect(budget.allows('never-called')).toBe(true);
  });

  it('forgets calls older than ten seconds', () => {
    const { budget, advance } = budgetAt(1_000_000, { ratio: 0, minRetries: 1 });
    times(2, () => budget.record('a', true));
    expect(budget.allows('a')).toBe(false);
    advance(10_500);
    expect(budget.allows('a')).toBe(true);
  });
});
