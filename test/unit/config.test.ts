import { ConfigError, loadConfig } from '../../src/config/load';

describe('loadConfig', () => {
  it('fills the defaults from an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      databaseUrl: 'postgresql://postgres@127.0.0.1:5432/switchyard',
      redisUrl: 'redis://127.0.0.1:6379',
      logLevel: 'info',
      role: 'all',
      autoModelName: 'switchyard',
    });
    expect(config.providers.openai).toEqual({ apiKey: undefined, baseUrl: 'https://api.openai.com/v1' });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads provider keys and base URLs', () => {
    const config = loadConfig({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999' });
    expect(config.providers.anthropic).toEqual({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9999' });
  });

  it('names every bad variable in one error', () => {
    try {
      loadConfig({ PORT: 'eighty', REDIS_URL: 'http://nope', GROQ_BASE_URL: 'not a url', SWITCHYARD_ROLE: 'both' });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as ConfigError).message;
      expect(message).toContain('PORT:');
      expect(message).toContain('REDIS_URL: must be a redis:// or rediss:// URL');
      expect(message).toContain('GROQ_BASE_URL:');
      expect(message).toContain('SWITCHYARD_ROLE:');
    }
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', OPENAI_API_KEY: '' }).port).toBe(8080);
    expect(loadConfig({ OPENAI_API_KEY: '' }).providers.openai.apiKey).toBeUndefined();
  });
});
