import { request } from 'node:http';
import { startSimulator, type Simulator } from './server';

/** POSTs an OpenAI chat completion to the simulator and reads the raw body, noting when each piece arrived. */
function post(sim: Simulator, body: object): Promise<{ status: number; text: string; arrivals: number[]; broken: boolean }> {
  const url = new URL(`${sim.baseUrls.openai}/chat/completions`);
  const payload = JSON.stringify(body);
  return new Promise((resolve) => {
    const arrivals: number[] = [];
    let text = '';
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          arrivals.push(Date.now());
          text += chunk;
        });
        res.on('close', () => resolve({ status: res.statusCode ?? 0, text, arrivals, broken: !res.complete }));
      },
    );
    req.on('error', () => resolve({ status: 0, text, arrivals, broken: true }));
    req.end(payload);
  });
}

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('simulator: slow streams and whether a call completed', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.reset());

  it('`sim-drip-N` streams its content chunks at least N ms apart, then ends normally', async () => {
    const started = Date.now();
    const res = await post(sim, { model: 'sim-drip-60', stream: true, messages: [{ role: 'user', content: 'one two three' }] });
    expect(res.status).toBe(200);
    expect(res.broken).toBe(false);
    expect(res.text).toContain('data: [DONE]');
    // "Echo: one two three" is four content chunks, each preceded by the wait (a lower bound, whatever the machine's load).
    expect(Date.now() - started).toBeGreaterThanOrEqual(4 * 60);
    expect(res.arrivals.length).toBeGreaterThanOrEqual(4);
  });

  it('a scripted `chunkDelayMs` does the same for any model name', async () => {
    sim.script('any-model', [{ kind: 'ok', chunkDelayMs: 50 }]);
    const started = Date.now();
    const res = await post(sim, { model: 'any-model', stream: true, messages: [{ role: 'user', content: 'one two' }] });
    expect(res.text).toContain('data: [DONE]');
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 50);
  });

  it('records whether each call was answered in full', async () => {
    await post(sim, { model: 'plain', messages: [{ role: 'user', content: 'hi' }] });
    const reset = await post(sim, { model: 'sim-reset', messages: [{ role: 'user', content: 'hi' }] });
    expect(reset.broken).toBe(true);
    await until(() => sim.requests.every((r) => r.completed !== undefined));
    expect(sim.requests.map((r) => r.completed)).toEqual([true, false]);
  });
});
