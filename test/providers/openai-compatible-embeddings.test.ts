import { OpenAiCompatibleProvider } from '../../src/providers/openai-compatible/provider';
import { OPENAI_COMPATIBLE_VENDORS, type OpenAiCompatibleVendor } from '../../src/providers/openai-compatible/vendors';
import { SIM_BAD_KEY, startSimulator, type Simulator } from '../simulator/server';
import { failure, simulatorContext } from './call-helpers';

/** `embed()` of the OpenAI-compatible base against the simulator: the answer, the vendor quirks, and each fault. */

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());
afterEach(() => sim.reset());

const providerOf = (id: string): OpenAiCompatibleProvider => {
  const vendor = OPENAI_COMPATIBLE_VENDORS.find((v) => v.id === id) as OpenAiCompatibleVendor;
  return new OpenAiCompatibleProvider(vendor);
};
const openai = () => providerOf('openai');
const ctx = (overrides: Parameters<typeof simulatorContext>[1] = {}) => simulatorContext(sim.baseUrls.openai, overrides);

it.each(OPENAI_COMPATIBLE_VENDORS.map((v) => v.id))('%s embeds texts in input order, with usage', async (id) => {
  const result = await providerOf(id).embed({ model: 'text-embedding-3-small', inputs: ['one text', 'two texts'] }, ctx());
  expect(result.vectors).toHaveLength(2);
  expect(result.vectors[0]).toHaveLength(1536);
  expect(result.vectors[0]).not.toEqual(result.vectors[1]);
  expect(result.promptTokens).toBe(5);
  expect(sim.requests.at(-1)).toMatchObject({ path: '/openai/v1/embeddings', headers: expect.objectContaining({ authorization: 'Bearer sim-key' }) });
});

it('passes dimensions and user to OpenAI, and leaves user out for Mistral, which refuses it', async () => {
  const short = await openai().embed({ model: 'text-embedding-3-large', inputs: ['x'], dimensions: 64, user: 'u' }, ctx());
  expect(short.vectors[0]).toHaveLength(64);
  expect(sim.requests.at(-1)?.body).toMatchObject({ dimensions: 64, user: 'u', encoding_format: 'float' });
  const mistral = await providerOf('mistral').embed({ model: 'mistral-embed', inputs: ['x'], user: 'u' }, ctx());
  expect(mistral.vectors[0]).toHaveLength(1024);
  expect(sim.requests.at(-1)?.body).not.toHaveProperty('user');
});

it('sends no Authorization header to a keyless server (Ollama, vLLM)', async () => {
  // The simulator itself wants a key, so it refuses the call; what matters is what was sent.
  await failure(providerOf('ollama').embed({ model: 'nomic-embed-text', inputs: [[1, 2, 3]] }, { ...ctx(), apiKey: '' }));
  expect(sim.requests.at(-1)?.headers.authorization).toBeUndefined();
  expect(sim.requests.at(-1)?.body).toMatchObject({ input: [[1, 2, 3]] });
});

describe('failures', () => {
  const call = (overrides: Parameters<typeof simulatorContext>[1] = {}) =>
    failure(openai().embed({ model: 'text-embedding-3-small', inputs: ['x'] }, ctx(overrides)));

  it('400: bad_request with the upstream message', async () => {
    const error = await failure(openai().embed({ model: 'text-embedding-ada-002', inputs: ['x'], dimensions: 8 }, ctx()));
    expect(error).toMatchObject({ kind: 'bad_request', status: 400, message: expect.stringMatching(/dimensions/) });
    expect(error?.retryable).toBe(false);
  });

  it('401: authentication', async () => {
    expect(await call({ apiKey: SIM_BAD_KEY })).toMatchObject({ kind: 'authentication', status: 401 });
  });

  it('429: rate_limited with Retry-After', async () => {
    sim.script('text-embedding-3-small', [{ kind: 'status', status: 429, retryAfterSeconds: 2 }]);
    expect(await call()).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 2000 });
  });

  it('5xx: server_error, retryable', async () => {
    sim.script('text-embedding-3-small', [{ kind: 'status', status: 503 }]);
    const error = await call();
    expect(error).toMatchObject({ kind: 'server_error', status: 503 });
    expect(error?.retryable).toBe(true);
  });

  it('a hang: timeout', async () => {
    sim.script('text-embedding-3-small', [{ kind: 'hang' }]);
    expect(await call({ timeoutMs: 200, callTimeoutMs: 200 })).toMatchObject({ kind: 'timeout' });
  });

  it('a reset connection, or a body cut short: retryable transport failures', async () => {
    sim.script('text-embedding-3-small', [{ kind: 'reset' }, { kind: 'cut', afterChunks: 0 }]);
    const reset = await call();
    expect(reset?.kind).toBe('connection');
    const cut = await call();
    expect(cut?.retryable).toBe(true);
  });

  it('cancelled: aborted', async () => {
    sim.script('text-embedding-3-small', [{ kind: 'hang' }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await call({ signal: controller.signal })).toMatchObject({ kind: 'aborted' });
  });
});
