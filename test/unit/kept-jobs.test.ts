import { randomUUID } from 'node:crypto';
import { shardIndexOf } from '../../src/queue/completion-shards';
import { inKeptSample, sampledRetention } from '../../src/queue/kept-jobs';

const KEPT = { age: 3600, count: 500 };
const FAILED_KEPT = { age: 86_400, count: 1000 };
const ids = Array.from({ length: 12_000 }, () => randomUUID());

describe('the kept sample of finished completion jobs', () => {
  it('keeps about one in N, every job with 1, none with 0, and decides the same for the same id', () => {
    const kept = ids.filter((id) => inKeptSample(id, 10)).length;
    expect(kept / ids.length).toBeGreaterThan(0.085);
    expect(kept / ids.length).toBeLessThan(0.115);
    expect(ids.every((id) => inKeptSample(id, 1))).toBe(true);
    expect(ids.some((id) => inKeptSample(id, 0))).toBe(false);
    expect(ids.slice(0, 100).map((id) => inKeptSample(id, 10))).toEqual(ids.slice(0, 100).map((id) => inKeptSample(id, 10)));
  });

  it('spreads over the six shards of a cluster (the shards hash the id another way)', () => {
    for (let shard = 0; shard < 6; shard++) {
      const inShard = ids.filter((id) => shardIndexOf(id, 6) === shard);
      const share = inShard.filter((id) => inKeptSample(id, 6)).length / inShard.length;
      expect(share).toBeGreaterThan(0.1);
      expect(share).toBeLessThan(0.24);
    }
  });

  it('removes a job out of the sample as it completes, and leaves what fails, and options that keep nothing, as given', () => {
    const inSample = ids.find((id) => inKeptSample(id, 10)) as string;
    const outOfSample = ids.find((id) => !inKeptSample(id, 10)) as string;
    const options = { jobId: outOfSample, attempts: 1, removeOnComplete: KEPT, removeOnFail: FAILED_KEPT };
    expect(sampledRetention(outOfSample, options, 10)).toEqual({ ...options, removeOnComplete: true });
    expect(sampledRetention(inSample, options, 10)).toEqual(options);
    expect(sampledRetention(outOfSample, { removeOnComplete: true, removeOnFail: true }, 10)).toEqual({ removeOnComplete: true, removeOnFail: true });
    expect(sampledRetention(outOfSample, { attempts: 1 }, 10)).toEqual({ attempts: 1 });
  });
});
