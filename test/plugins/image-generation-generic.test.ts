import { readMediaConfig } from '../../src/config/plugins/media';
import { createImageGenerationPlugin } from '../../src/plugins/image-generation-generic';
import type { Plugin, PluginInput } from '../../src/plugins/types';
import { imageGenerationSettings } from '../../src/schemas/plugin-settings';
import { MEDIA_SIM_KEY, startMediaSimulator, type MediaSimulator } from '../simulator/plugins/openai-media';
import { pluginContext, runPluginScenarios } from './scenarios';

const input = (overrides: Partial<PluginInput> = {}): PluginInput => ({
  messages: [{ role: 'user', content: 'Draw a lighthouse at dusk' }],
  query: 'Draw a lighthouse at dusk',
  files: [],
  images: [],
  args: null,
  ...overrides,
});

const configFor = (sim: MediaSimulator, env: Record<string, string> = {}) =>
  readMediaConfig({ IMAGES_BASE_URL: sim.baseUrl, IMAGES_API_KEY: MEDIA_SIM_KEY, IMAGE_COST_USD: '0.05', ...env }).images;

let scenarioSim: MediaSimulator;
runPluginScenarios({
  name: 'image-generation-generic',
  start: async () => {
    scenarioSim = await startMediaSimulator();
    return { plugin: createImageGenerationPlugin(configFor(scenarioSim)), close: () => scenarioSim.close() };
  },
  script: (...faults) => {
    scenarioSim.images.reset();
    scenarioSim.images.push(...faults);
  },
  input: input(),
  settings: imageGenerationSettings.parse({}),
  expectOk: (output) => {
    expect(output.artifacts).toHaveLength(1);
    expect(output.artifacts[0]).toMatchObject({ type: 'image', plugin: 'image-generation-generic', mime_type: 'image/png', size: '1024x1024' });
    expect(output.costUsd).toBeCloseTo(0.05);
  },
  empty: 'error',
});

describe('image-generation-generic against an OpenAI Images-compatible backend', () => {
  let sim: MediaSimulator;
  let plugin: Plugin;
  beforeAll(async () => {
    sim = await startMediaSimulator();
    plugin = createImageGenerationPlugin(configFor(sim));
  });
  afterEach(() => sim.reset());
  afterAll(() => sim.close());

  const run = (settings: object, overrides: Partial<PluginInput> = {}) =>
    plugin.run(input(overrides), pluginContext(imageGenerationSettings.parse(settings), { signal: AbortSignal.timeout(5000), deadline: Date.now() + 5000 }));

  it('sends the prompt, model, n and size with the bearer key, and leaves response_format out for GPT image models', async () => {
    const output = await run({ n: 2 });
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]).toMatchObject({ path: '/v1/images/generations', authorization: `Bearer ${MEDIA_SIM_KEY}` });
    expect(sim.requests[0]?.json).toEqual({ model: 'gpt-image-1', prompt: 'Draw a lighthouse at dusk', n: 2, size: '1024x1024' });
    expect(output.artifacts).toHaveLength(2);
    expect(output.artifacts[0]).toMatchObject({ b64_json: expect.any(String) });
    expect(output.costUsd).toBeCloseTo(0.1);
    expect(output.context).toContain('2 images were generated and attached to the response');
  });

  it('asks dall-e models for the configured response_format and keeps URLs and the revised prompt', async () => {
    const output = await run({ model: 'dall-e-3', response_format: 'url', size: '1792x1024' });
    expect(sim.requests[0]?.json).toMatchObject({ model: 'dall-e-3', response_format: 'url', size: '1792x1024' });
    expect(output.artifacts[0]).toEqual({
      type: 'image',
      plugin: 'image-generation-generic',
      mime_type: 'image/png',
      url: expect.stringMatching(/^https:\/\/images\.example\/generated\/.+\.png$/),
      size: '1792x1024',
      revised_prompt: 'A detailed rendering of: Draw a lighthouse at dusk',
    });
    expect(output.context).toContain('Revised prompt used by the image model: A detailed rendering of: Draw a lighthouse at dusk');
  });

  it("takes the prompt and size from the model's tool call when there is one", async () => {
    await run({}, { args: { prompt: 'A red bicycle', size: '1536x1024' } });
    expect(sim.requests[0]?.json).toMatchObject({ prompt: 'A red bicycle', size: '1536x1024' });
  });

  it("refuses an empty prompt as the caller's error, without calling the backend", async () => {
    await expect(run({}, { query: '  ' })).rejects.toMatchObject({ name: 'ApiError', code: 'missing_field', param: 'messages' });
    await expect(run({}, { args: { prompt: 'x', size: 'huge' } })).rejects.toMatchObject({ name: 'ApiError', param: 'size' });
    expect(sim.requests).toHaveLength(0);
  });

  it('reports a refused key as a non-retryable authentication failure', async () => {
    const wrongKey = createImageGenerationPlugin(configFor(sim, { IMAGES_API_KEY: 'wrong' }));
    const ctx = pluginContext(imageGenerationSettings.parse({}), { signal: AbortSignal.timeout(5000), deadline: Date.now() + 5000 });
    await expect(wrongKey.run(input(), ctx)).rejects.toMatchObject({ name: 'UpstreamError', kind: 'authentication', status: 401, retryable: false });
  });

  it('is unavailable, and says why, without a key', () => {
    const keyless = createImageGenerationPlugin(readMediaConfig({ IMAGES_BASE_URL: sim.baseUrl }).images);
    expect(keyless.availability()).toEqual({ available: false, reason: expect.stringContaining('IMAGES_API_KEY') });
    expect(plugin.availability()).toEqual({ available: true });
  });
});
