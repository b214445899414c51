import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterLoopTime } from '../../src/domain/loop-timer';

/** What a request's synchronous work, a long garbage collection or a starved host does to the loop. */
function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy.
  }
}

/** A peer on loopback that echoes what it is sent, as Redis or PostgreSQL answers a statement. */
let server: Server;
let client: Socket;

beforeAll(async () => {
  server = createServer((socket) => socket.on('data', (data) => socket.write(data)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise((resolve) => client.once('connect', resolve));
});
afterAll(async () => {
  client.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends a line to the echo peer; resolves once its answer has been read. */
function ask(): Promise<void> {
  const answered = new Promise<void>((resolve) => client.once('data', () => resolve()));
  client.write('ping\n');
  return answered;
}

describe('afterLoopTime', () => {
  it('expires after its time on a free loop', async () => {
    const started = performance.now();
    const expiredAt = await new Promise<number>((resolve) => afterLoopTime(30, () => resolve(performance.now())));
    expect(expiredAt - started).toBeGreaterThanOrEqual(29);
  });

  it('does not expire once cancelled', async () => {
    let expired = false;
    const cancel = afterLoopTime(10, () => (expired = true));
    cancel();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(expired).toBe(false);
  });

  it('lets an answer that came while the loop was held past the time win over the expiry', async () => {
    let expired = false;
    const cancel = afterLoopTime(20, () => (expired = true));
    const answered = ask().then(cancel);
    // Held well past the 20 ms: the answer waits, unread, while the timer is long due.
    holdLoop(150);
    await answered;
    expect(expired).toBe(false);
  });

  it('still expires when no answer comes, after at most twice its time plus the time held', async () => {
    const started = performance.now();
    const expired = new Promise<number>((resolve) => afterLoopTime(40, () => resolve(performance.now())));
    holdLoop(100);
    const elapsed = (await expired) - started;
    expect(elapsed).toBeGreaterThanOrEqual(100);
    // 100 ms held, 40 ms more given back at most (the time), and the loop's jitter.
    expect(elapsed).toBeLessThan(100 + 40 + 1000);
  });
});
