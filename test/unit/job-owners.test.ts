import { HEARTBEAT_INTERVAL_MS, HEARTBEAT_TTL_MS } from '../../src/resilience/job-owners';

describe('JobOwners heartbeat', () => {
  it('survives three missed renewals, and is gone soon enough for recovery within 2.8 s of a kill', () => {
    expect(HEARTBEAT_TTL_MS).toBeGreaterThanOrEqual(HEARTBEAT_INTERVAL_MS * 4);
    // TTL + at most 500 ms to the next reap + BullMQ's stalled check (1 s by default).
    expect(HEARTBEAT_TTL_MS + 500 + 1000).toBeLessThanOrEqual(2800);
  });
});
