import { derivedOnce, readOnce } from '../../src/pipeline/space-memo';
import type { SpaceContext } from '../../src/store/space-context';

/** A snapshot stands for itself here: the memo keys on the object, not on its fields. */
const snapshot = (): SpaceContext => ({ id: 'space' }) as SpaceContext;

describe('values derived from a Space snapshot', () => {
  it('are computed once per snapshot, and again for a new snapshot', () => {
    const compute = jest.fn(() => ({ parsed: true }));
    const first = snapshot();
    const value = derivedOnce(first, 'k', compute);
    expect(derivedOnce(first, 'k', compute)).toBe(value);
    expect(compute).toHaveBeenCalledTimes(1);
    derivedOnce(snapshot(), 'k', compute);
    expect(compute).toHaveBeenCalledTimes(2);
  });

  it('share one read between concurrent callers, and do not keep a failed read', async () => {
    const space = snapshot();
    const read = jest.fn().mockRejectedValueOnce(new Error('database away')).mockResolvedValue(true);
    await expect(readOnce(space, 'files', read)).rejects.toThrow('database away');
    const [a, b] = await Promise.all([readOnce(space, 'files', read), readOnce(space, 'files', read)]);
    expect([a, b]).toEqual([true, true]);
    expect(read).toHaveBeenCalledTimes(2);
  });
});
