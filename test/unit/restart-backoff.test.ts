import { RestartBackoff } from '../../src/supervisor/restart-backoff';

describe('RestartBackoff', () => {
  it('restarts at once after a healthy run, and backs off 0.5 s, 1 s, 2 s … 30 s on quick exits in a row', () => {
    let now = 0;
    const backoff = new RestartBackoff(() => now);
    backoff.started();
    now = 60_000;
    expect(backoff.nextDelayMs()).toBe(0);
    const delays: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      backoff.started();
      now += 100;
      delays.push(backoff.nextDelayMs());
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    backoff.started();
    now += 10_000;
    expect(backoff.nextDelayMs()).toBe(0);
  });
});
