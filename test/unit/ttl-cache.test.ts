import { TtlCache } from '../../src/cache/ttl-cache';

describe('TtlCache', () => {
  it('answers from the cache until the entry expires', async () => {
    const cache = new TtlCache<number>(1000);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('k', load, 0)).toBe(1);
    expect(await cache.get('k', load, 999)).toBe(1);
    expect(await cache.get('k', load, 1000)).toBe(2);
  });

  it('forgets a failed load, so the next call tries again', async () => {
    const cache = new TtlCache<number>(1000);
    await expect(cache.get('k', () => Promise.reject(new Error('down')), 0)).rejects.toThrow('down');
    expect(await cache.get('k', async () => 7, 1)).toBe(7);
  });

  it('a slow load that fails after a newer one replaced it leaves the newer entry alone', async () => {
    const cache = new TtlCache<number>(1000);
    let fail: (error: Error) => void = () => undefined;
    const slow = cache.get('k', () => new Promise<number>((_, reject) => (fail = reject)), 0);
    expect(await cache.get('k', async () => 2, 1000)).toBe(2);
    fail(new Error('late'));
    await expect(slow).rejects.toThrow('late');
    expect(await cache.get('k', async () => 3, 1500)).toBe(2);
  });
});
