import { readMediaConfig } from '../../src/config/plugins/media';

describe('readMediaConfig', () => {
  it('defaults to OpenAI with no key: both plugins then unavailable', () => {
    expect(readMediaConfig({})).toEqual({
      images: { backend: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', apiKey: undefined, costUsdPerImage: 0.04 },
      transcribe: {
        backend: 'openai-compatible',
        baseUrl: 'https://api.openai.com/v1',
        apiKey: undefined,
        costUsdPerMinute: 0.006,
        maxBytes: 26_214_400,
        maxSeconds: 1800,
      },
    });
  });

  it("borrows the OpenAI provider's base URL and key together", () => {
    const config = readMediaConfig({ OPENAI_BASE_URL: 'https://proxy.example/v1', OPENAI_API_KEY: 'sk-openai' });
    expect(config.images).toMatchObject({ baseUrl: 'https://proxy.example/v1', apiKey: 'sk-openai' });
    expect(config.transcribe).toMatchObject({ baseUrl: 'https://proxy.example/v1', apiKey: 'sk-openai' });
  });

  it('never sends the OpenAI key to a backend of its own base URL', () => {
    const config = readMediaConfig({
      OPENAI_API_KEY: 'sk-openai',
      IMAGES_BASE_URL: 'http://localai:8080/v1',
      TRANSCRIBE_BASE_URL: 'http://whisper:9000/v1',
      TRANSCRIBE_API_KEY: 'own',
    });
    expect(config.images).toMatchObject({ baseUrl: 'http://localai:8080/v1', apiKey: undefined });
    expect(config.transcribe).toMatchObject({ baseUrl: 'http://whisper:9000/v1', apiKey: 'own' });
  });

  it('reads prices and limits, empty values as unset', () => {
    const config = readMediaConfig({
      IMAGE_COST_USD: '0.011',
      TRANSCRIBE_COST_USD_PER_MINUTE: '0.003',
      TRANSCRIBE_MAX_BYTES: '1000',
      TRANSCRIBE_MAX_SECONDS: '',
      IMAGES_API_KEY: '',
    });
    expect(config.images).toMatchObject({ costUsdPerImage: 0.011, apiKey: undefined });
    expect(config.transcribe).toMatchObject({ costUsdPerMinute: 0.003, maxBytes: 1000, maxSeconds: 1800 });
  });

  it('chooses the test backends only when named, free unless a cost is set', () => {
    const config = readMediaConfig({ IMAGES_BACKEND: 'test', TRANSCRIBE_BACKEND: 'TEST', TRANSCRIBE_COST_USD_PER_MINUTE: '0.5' });
    expect(config.images).toMatchObject({ backend: 'test', costUsdPerImage: 0, apiKey: undefined });
    expect(config.transcribe).toMatchObject({ backend: 'test', costUsdPerMinute: 0.5 });
    expect(readMediaConfig({ OPENAI_API_KEY: 'sk-openai' }).images.backend).toBe('openai-compatible');
    expect(() => readMediaConfig({ IMAGES_BACKEND: 'fake' })).toThrow(/IMAGES_BACKEND:/);
  });

  it('names each bad variable', () => {
    expect(() => readMediaConfig({ IMAGES_BASE_URL: 'ftp://x', IMAGE_COST_USD: '-1', TRANSCRIBE_MAX_BYTES: 'lots' })).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/IMAGES_BASE_URL:[\s\S]*IMAGE_COST_USD:[\s\S]*TRANSCRIBE_MAX_BYTES:/) }),
    );
  });
});
