import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { complete, isolatedSpace, sleep, userMessage, type IsolatedSpace } from '../helpers/completion-fixtures';
import { simulatedProviders, startCompletionsHarness, type CompletionsHarness } from '../helpers/completions';
import { freePort } from '../helpers/free-port';
import { watchLoopStalls } from '../helpers/loop-stalls';
import { startSimulator, type Simulator } from '../simulator/server';

/**
 * Redis going away under the service, caused for real on a private redis-server: frozen (SIGSTOP: a node
 * that stops answering, as a cluster's master does until its replica takes over) and killed (kill -9:
 * connections refused). A new request answers 503 `service_unavailable` with `Retry-After` within a few
 * seconds, never 500 and never a hang, and a request answered 503 never runs once Redis is back.
 */
let port: number;
let redis: ChildProcess;
let sim: Simulator;
let h: CompletionsHarness;
let space: IsolatedSpace<'steady'>;

function startRedis(): ChildProcess {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  return child;
}

async function redisAnswers(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout?.trim() !== 'PONG') {
    if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start`);
    await sleep(50);
  }
}

const callsWith = (text: string) => sim.requests.filter((r) => JSON.stringify(r.body).includes(text)).length;

beforeAll(async () => {
  port = await freePort();
  redis = startRedis();
  await redisAnswers();
  // Ours answered, not a server another test run started on the same port between freePort and the start.
  const info = spawnSync('redis-cli', ['-p', String(port), 'info', 'server'], { encoding: 'utf8' }).stdout ?? '';
  if (!info.includes(`process_id:${String(redis.pid)}\r`)) throw new Error(`redis-server could not listen on ${port}: another process answers there`);
  sim = await startSimulator();
  h = startCompletionsHarness({ providers: simulatedProviders(sim), redisUrl: `redis://127.0.0.1:${port}`, upstreamTimeoutMs: 10_000 });
  space = await isolatedSpace(h, { models: [{ name: 'steady' }] });
}, 60_000);

afterAll(async () => {
  redis.kill('SIGCONT');
  await h.close();
  await sim.close();
  redis.kill('SIGKILL');
  // A failsafe, not an expected time: on a machine busy with other test runs, closing the workers after
  // Redis came back took over 30 s once.
}, 120_000);

describe('when Redis goes away', () => {
  it('answers 503 with Retry-After while Redis does not answer, runs nothing it refused, and serves again once it is back', async () => {
    expect((await complete(h, space.tenant, { model: 'steady', messages: userMessage('before the freeze') })).status).toBe(200);
    redis.kill('SIGSTOP');
    try {
      const clock = watchLoopStalls();
      const refused = await complete(h, space.tenant, { model: 'steady', messages: userMessage('during the freeze') });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('2');
      expect(refused.body.error).toMatchObject({ code: 'service_unavailable', type: 'server_error' });
      // The service's own commands give up after 3 s, queueing a job after 3 s (of the process's own time): never a hang.
      expect(clock.ownMs()).toBeLessThan(8000);
      clock.stop();
    } finally {
      redis.kill('SIGCONT');
    }
    const after = await complete(h, space.tenant, { model: 'steady', messages: userMessage('after the freeze') });
    expect(after.status).toBe(200);
    // A request answered 503 never reaches the upstream, even if its job landed once Redis was back.
    await sleep(1500);
    expect(callsWith('during the freeze')).toBe(0);
  }, 60_000);

  it('answers 503, not 500, while Redis refuses connections (killed), and serves again once it is restarted', async () => {
    redis.kill('SIGKILL');
    await sleep(200);
    const refused = await complete(h, space.tenant, { model: 'steady', messages: userMessage('while Redis is dead') });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    redis = startRedis();
    await redisAnswers();
    // An empty Redis: the service reconnects and needs nothing it held.
    let status = 0;
    const deadline = Date.now() + 20_000;
    while (status !== 200 && Date.now() < deadline) {
      status = (await complete(h, space.tenant, { model: 'steady', messages: userMessage('after the restart') })).status;
      if (status !== 200) await sleep(500);
    }
    expect(status).toBe(200);
    expect(callsWith('while Redis is dead')).toBe(0);
  }, 60_000);
});
