import { Redis } from 'ioredis';
import pino from 'pino';
import { cacheDigest, normaliseQuery, PluginResultCache } from '../../../src/plugins/result-cache';
import type { PluginOutput } from '../../../src/plugins/types';
import { TEST_REDIS_URL, uniqueSuffix } from '../../helpers/test-database';

const logger = pino({ level: 'silent' });
const redis = new Redis(TEST_REDIS_URL);
const prefix = `test-cache-${uniqueSuffix()}`;
const cache = new PluginResultCache(redis, prefix, logger);

afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const output: PluginOutput = {
  context: '[1] Rust 1.80 released',
  searchResults: [{ index: 1, source: 'web', title: 'Rust 1.80', url: 'https://blog.example/rust', score: 0.9, snippet: 'released' }],
  artifacts: [],
  costUsd: 0.005,
  warning: '1 of 2 pages could not be read',
};

describe('normaliseQuery', () => {
  it('lower-cases, collapses whitespace and trims', () => {
    expect(normaliseQuery('  Latest\tRust \n\n RELEASE  ')).toBe('latest rust release');
  });
});

describe('PluginResultCache', () => {
  it('returns what was stored for the same normalised input, at no cost', async () => {
    await cache.set('web-search', { query: 'Latest Rust release', maxResults: 5, backend: 'searxng' }, output, 60);
    const hit = await cache.get('web-search', { backend: 'searxng', query: '  latest   RUST release ', maxResults: 5 });
    expect(hit).toEqual({ ...output, costUsd: 0 });
  });

  it('misses for another query, other settings or another plugin', async () => {
    await cache.set('web-search', { query: 'weather in oslo', maxResults: 5 }, output, 60);
    expect(await cache.get('web-search', { query: 'weather in bergen', maxResults: 5 })).toBeNull();
    expect(await cache.get('web-search', { query: 'weather in oslo', maxResults: 10 })).toBeNull();
    expect(await cache.get('web-search', { query: 'weather in oslo' })).toBeNull();
    expect(await cache.get('space-search', { query: 'weather in oslo', maxResults: 5 })).toBeNull();
  });

  it('keys space-search by the Space whose files it searched', async () => {
    await cache.set('space-search', { query: 'refund policy', dataSpaceId: 'space-a' }, output, 60);
    expect(await cache.get('space-search', { query: 'refund policy', dataSpaceId: 'space-b' })).toBeNull();
    expect(await cache.get('space-search', { query: 'refund policy', dataSpaceId: 'space-a' })).not.toBeNull();
  });

  it('stores under a digest with the TTL, never the query in clear', async () => {
    const parts = { query: 'my secret question', maxResults: 3 };
    await cache.set('web-search', parts, output, 42);
    const key = `${prefix}:plugin-cache:web-search:${cacheDigest('web-search', parts)}`;
    expect(cacheDigest('web-search', parts)).toMatch(/^[0-9a-f]{64}$/);
    const ttl = await redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(42);
    expect((await redis.keys(`${prefix}:*secret*`)).length).toBe(0);
  });

  it('stores nothing when the TTL is 0 (the cache turned off)', async () => {
    await cache.set('web-search', { query: 'not kept' }, output, 0);
    expect(await cache.get('web-search', { query: 'not kept' })).toBeNull();
  });

  it('forgets an entry once its TTL has passed', async () => {
    const parts = { query: 'short lived' };
    await cache.set('web-search', parts, output, 1);
    await redis.pexpire(`${prefix}:plugin-cache:web-search:${cacheDigest('web-search', parts)}`, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await cache.get('web-search', parts)).toBeNull();
  });

  it('treats an entry of another shape as a miss', async () => {
    const parts = { query: 'corrupted' };
    await redis.set(`${prefix}:plugin-cache:web-search:${cacheDigest('web-search', parts)}`, '{"context": 3}', 'EX', 60);
    expect(await cache.get('web-search', parts)).toBeNull();
  });

  it('is a miss, not a failure, when Redis cannot be reached', async () => {
    const closed = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    const broken = new PluginResultCache(closed, prefix, logger);
    await expect(broken.get('web-search', { query: 'anything' })).resolves.toBeNull();
    await expect(broken.set('web-search', { query: 'anything' }, output, 60)).resolves.toBeUndefined();
    closed.disconnect();
  });
});
