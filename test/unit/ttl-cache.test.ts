import { TtlCache } from '../../src/cache/ttl-cache';

describe('TtlCache', () => {
  it('answers from the cache until the entry expires', async () => {
    const cache = new TtlCache<number>(1000);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('k', load, { now: 0 })).toBe(1);
    expect(await cache.get('k', load, { now: 999 })).toBe(1);
    expect(await cache.get('k', load, { now: 1000 })).toBe(2);
  });

  it('forgets a failed load, so the next call tries again', async () => {
    const cache = new TtlCache<number>(1000);
    await expect(cache.get('k', () => Promise.reject(new Error('down')), { now: 0 })).rejects.toThrow('down');
    expect(await cache.get('k', async () => 7, { now: 1 })).toBe(7);
  });

  it('a slow load that fails after a newer one replaced it leaves the newer entry alone', async () => {
    const cache = new TtlCache<number>(1000);
    let fail: (error: Error) => void = () => undefined;
    const slow = cache.get('k', () => new Promise<number>((_, reject) => (fail = reject)), { now: 0 });
    expect(await cache.get('k', async () => 2, { now: 1000 })).toBe(2);
    fail(new Error('late'));
    await expect(slow).rejects.toThrow('late');
    expect(await cache.get('k', async () => 3, { now: 1500 })).toBe(2);
  });

  it('loads again when the stamp differs, however fresh the entry', async () => {
    const cache = new TtlCache<number>(60_000);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('k', load, { stamp: '1', now: 0 })).toBe(1);
    expect(await cache.get('k', load, { stamp: '1', now: 10 })).toBe(1);
    expect(await cache.get('k', load, { stamp: '2', now: 20 })).toBe(2);
    // A stamp that goes back (Redis lost its keys) is a change too.
    expect(await cache.get('k', load, { stamp: '1', now: 30 })).toBe(3);
  });
});
