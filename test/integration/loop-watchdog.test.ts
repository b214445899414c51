import { Writable } from 'node:stream';
import request from 'supertest';
import { createLogger } from '../../src/logging/logger';
import { markLoopOwner } from '../../src/observability/loop-owner';
import { startLoopWatchdog } from '../../src/observability/loop-watchdog';
import { metrics } from '../../src/observability/metrics';
import { watchLoopStalls } from '../helpers/loop-stalls';
import { createTestContext, type TestContext } from '../helpers/test-context';

/** The event-loop watchdog, against real stalls: a loop held by busy work, and a large request body. */

interface LogLine {
  msg: string;
  lag_ms?: number;
  request_id?: string;
}

function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) if (text) lines.push(JSON.parse(text) as LogLine);
      done();
    },
  });
  return { logger: createLogger('warn', {}, sink), lines };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy: what a request's synchronous work on a hostile input would do.
  }
}

const stallLines = (lines: LogLine[]) => lines.filter((line) => line.msg === 'event loop stalled');

describe('event-loop watchdog', () => {
  it('counts and logs a stall over the threshold, naming the request whose work held the loop', async () => {
    const { logger, lines } = capturingLogger();
    const before = (await metrics().loopStalls.get()).values[0]?.value ?? 0;
    const stop = startLoopWatchdog({ thresholdMs: 100, logger });
    try {
      await sleep(150);
      markLoopOwner('req-holding-the-loop');
      holdLoop(400);
      markLoopOwner('req-after-the-stall');
      await sleep(250);
    } finally {
      stop();
    }
    // The held loop's stall is reported once, naming its request. Loading modules or collecting garbage may
    // add stalls of their own on a loaded machine: before the mark they name no request, after it the next one.
    const stalls = stallLines(lines).filter((line) => line.request_id === 'req-holding-the-loop');
    expect(stalls).toHaveLength(1);
    expect(stalls[0]?.lag_ms).toBeGreaterThanOrEqual(300);
    expect((await metrics().loopStalls.get()).values[0]?.value).toBeGreaterThanOrEqual(before + 1);
    const histogram = (await metrics().loopStallSeconds.get()).values.find((v) => v.metricName === 'switchyard_event_loop_stall_seconds_count');
    expect(histogram?.value).toBeGreaterThanOrEqual(1);
  });

  it('stays quiet while the loop is free: every stall it reports, the loop really had', async () => {
    const { logger, lines } = capturingLogger();
    // An independent probe of the same loop: on a loaded machine the loop may really stall (a garbage
    // collection, a host that did not schedule the process), and the watchdog must then report it. What it
    // must never do is report a stall longer than the loop had: on a free loop, nothing at all.
    const probe = watchLoopStalls();
    const stop = startLoopWatchdog({ thresholdMs: 200, logger });
    await sleep(500);
    stop();
    probe.stop();
    const longestMs = probe.longestMs();
    // The probe ticks every 10 ms, the watchdog every 100: one may see a stall up to a tick longer than the
    // other. Below that, the loop had no stall the watchdog's 200 ms threshold could report.
    const unfounded = (lagMs: number) => longestMs < 100 || lagMs > longestMs + 100;
    expect(stallLines(lines).filter((line) => unfounded(line.lag_ms ?? 0))).toEqual([]);
  });

  describe('at the HTTP edge', () => {
    let ctx: TestContext;
    beforeAll(() => {
      ctx = createTestContext();
    });
    afterAll(() => ctx.close());

    it('names the request whose body was being parsed when the loop stalled', async () => {
      const { logger, lines } = capturingLogger();
      // A threshold this low makes the parse and validation of a large body a stall of its own.
      const stop = startLoopWatchdog({ thresholdMs: 2, logger });
      const tenant = await ctx.tenant();
      const messages = Array.from({ length: 12_000 }, (_, i) => ({ role: 'user', content: `message ${i} ${'x'.repeat(20)}` }));
      try {
        const res = await request(ctx.app)
          .post('/v1/messages/count_tokens')
          .set({ ...tenant.auth, 'anthropic-version': '2023-06-01', 'x-request-id': 'req-large-body' })
          .send({ model: 'switchyard', messages });
        expect(res.status).toBe(200);
        expect(res.headers['x-request-id']).toBe('req-large-body');
        await sleep(50);
      } finally {
        stop();
      }
      expect(stallLines(lines).map((line) => line.request_id)).toContain('req-large-body');
    });
  });
});
