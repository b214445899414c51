import { randomUUID } from 'node:crypto';
import { shardIndexOf } from '../../src/queue/completion-shards';
import { completionJobOptions, inKeptSample, MAX_KEPT_BODY_BYTES } from '../../src/queue/kept-jobs';

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

  it('keeps a finished job only in the sample, and every failed job its level allows', () => {
    const inSample = ids.find((id) => inKeptSample(id, 10)) as string;
    const outOfSample = ids.find((id) => !inKeptSample(id, 10)) as string;
    const options = (requestId: string, keptJob: 'whole' | 'masked' | 'none', bodyBytes?: number) =>
      completionJobOptions({ requestId, keptJob, bodyBytes, keptOneIn: 10 });
    expect(options(inSample, 'whole')).toEqual({ jobId: inSample, attempts: 1, removeOnComplete: KEPT, removeOnFail: FAILED_KEPT });
    expect(options(outOfSample, 'whole')).toEqual({ jobId: outOfSample, attempts: 1, removeOnComplete: true, removeOnFail: FAILED_KEPT });
    // Level 2: a kept finished job is masked by its worker; a failed one nobody masked is not kept.
    expect(options(inSample, 'masked')).toEqual({ jobId: inSample, attempts: 1, removeOnComplete: KEPT, removeOnFail: true });
    expect(options(outOfSample, 'masked')).toEqual({ jobId: outOfSample, attempts: 1, removeOnComplete: true, removeOnFail: true });
  });

  it('keeps nothing at level 3, nor of a large body, even in the sample', () => {
    const inSample = ids.find((id) => inKeptSample(id, 10)) as string;
    const nothing = { jobId: inSample, attempts: 1, removeOnComplete: true, removeOnFail: true };
    expect(completionJobOptions({ requestId: inSample, keptJob: 'none', keptOneIn: 10 })).toEqual(nothing);
    expect(completionJobOptions({ requestId: inSample, keptJob: 'whole', bodyBytes: MAX_KEPT_BODY_BYTES + 1, keptOneIn: 10 })).toEqual(nothing);
    expect(completionJobOptions({ requestId: inSample, keptJob: 'whole', bodyBytes: MAX_KEPT_BODY_BYTES, keptOneIn: 10 }).removeOnComplete).toEqual(KEPT);
  });

  it('keeps every finished job with 1 and none with 0', () => {
    expect(ids.slice(0, 50).every((id) => completionJobOptions({ requestId: id, keptJob: 'whole', keptOneIn: 1 }).removeOnComplete !== true)).toBe(true);
    expect(ids.slice(0, 50).every((id) => completionJobOptions({ requestId: id, keptJob: 'whole', keptOneIn: 0 }).removeOnComplete === true)).toBe(true);
  });
});
