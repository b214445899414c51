import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { createProviderRegistry } from '../../src/providers/registry';
import { customModelKeyContext } from '../../src/secrets/custom-model-key';
import { SecretBox } from '../../src/secrets/secret-box';
import { ModelAvailability } from '../../src/services/models/model-availability';
import { closeNames, didYouMean } from '../../src/text/close-names';
import { routable } from '../helpers/routable-model';

/** Why a model cannot answer: from the configuration (read once), the catalog's dates and the Space's switch. */

const keys = { current: randomBytes(32), previous: [] };

function configWith({ openaiKey, secrets, allowed = [] }: { openaiKey?: string; secrets: boolean; allowed?: string[] }): Config {
  const base = loadConfig();
  const providers = Object.fromEntries(Object.entries(base.providers).map(([id, settings]) => [id, { baseUrl: settings.baseUrl }])) as Config['providers'];
  return {
    ...base,
    providers: { ...providers, openai: { ...providers.openai, ...(openaiKey ? { apiKey: openaiKey } : {}) } },
    plugins: { ...base.plugins, net: { ...base.plugins.net, ssrfAllowedHosts: allowed } },
    secrets: { keys: secrets ? keys : null },
  };
}

const on = { globallyDisabled: false, active: true };

describe('the provider registry explains a missing binding', () => {
  const registry = createProviderRegistry(configWith({ secrets: true, allowed: ['127.0.0.1'] }));

  it('names the unset key of a catalog provider, and nothing for a provider that needs none', () => {
    expect(registry.explain({ provider: 'openai' })).toEqual({ code: 'provider_key_missing', message: 'OPENAI_API_KEY is not set' });
    expect(registry.explain({ provider: 'ollama' })).toBeNull();
    expect(registry.explain({ provider: 'test' })).toBeNull();
    expect(createProviderRegistry(configWith({ openaiKey: 'sk', secrets: false })).explain({ provider: 'openai' })).toBeNull();
  });

  it('tells an unknown provider, and the custom-only one, from a missing key', () => {
    expect(registry.explain({ provider: 'nowhere' })).toMatchObject({ code: 'provider_unknown' });
    expect(registry.explain({ provider: 'openai-compatible' })).toMatchObject({
      code: 'provider_unknown',
      message: expect.stringContaining('custom models only'),
    });
  });

  it("gives a custom model's credential and address problems", () => {
    const box = new SecretBox(keys);
    const endpoint = { baseUrl: 'http://127.0.0.1:9/v1', sealedApiKey: box.seal('sk-own', customModelKeyContext('m1')) };
    expect(registry.explain({ id: 'm1', provider: 'vllm', endpoint })).toBeNull();
    expect(registry.explain({ id: 'm2', provider: 'vllm', endpoint })).toMatchObject({ code: 'custom_model_key_unreadable' });
    const noSecrets = createProviderRegistry(configWith({ secrets: false, allowed: ['127.0.0.1'] }));
    expect(noSecrets.explain({ id: 'm1', provider: 'vllm', endpoint })).toEqual({
      code: 'custom_model_key_unreadable',
      message: 'its API key cannot be opened: PLUGIN_SECRETS_KEY is not set',
    });
    const refusing = createProviderRegistry(configWith({ secrets: true }));
    expect(refusing.explain({ id: 'm1', provider: 'vllm', endpoint })).toMatchObject({
      code: 'custom_model_endpoint_refused',
      message: expect.stringContaining('loopback'),
    });
  });
});

describe('ModelAvailability', () => {
  const availability = new ModelAvailability(createProviderRegistry(configWith({ openaiKey: 'sk', secrets: false })));
  const now = new Date('2026-11-27T00:00:00Z');

  it('says null for a model that can answer', () => {
    expect(availability.of(routable(), on, now)).toBeNull();
  });

  it('gives the reason a client needs first: switched off for all, provider, retired, then off in the Space', () => {
    const retired = routable({ until: new Date('2026-01-01T00:00:00Z') });
    expect(availability.of(routable({ provider: 'anthropic' }), { globallyDisabled: true, active: false }, now)?.code).toBe('globally_disabled');
    expect(availability.of(routable({ provider: 'anthropic', until: retired.until }), { globallyDisabled: false, active: false }, now)).toEqual({
      code: 'provider_key_missing',
      message: 'ANTHROPIC_API_KEY is not set',
    });
    expect(availability.of(retired, { globallyDisabled: false, active: false }, now)).toEqual({ code: 'retired', message: 'retired on 2026-01-01' });
    expect(availability.of(routable(), { globallyDisabled: false, active: false }, now)).toEqual({
      code: 'not_active_in_space',
      message: 'not switched on in this Space',
    });
  });

  it('keeps a deprecated model available (a named one still answers, with a warning)', () => {
    expect(availability.of(routable({ deprecatedOn: new Date('2026-01-01T00:00:00Z') }), on, now)).toBeNull();
  });
});

describe('close names', () => {
  const known = ['gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-4.1', 'claude-haiku-4-5', 'gemini-2.5-flash'];

  it('finds typos, swaps and parts, best first, case ignored', () => {
    expect(closeNames('gpt-41-mini', known)[0]).toBe('gpt-4.1-mini');
    expect(closeNames('cluade-haiku-4-5', known)).toEqual(['claude-haiku-4-5']);
    expect(closeNames('GEMINI-2.5-FLASH', known)).toEqual(['gemini-2.5-flash']);
    expect(closeNames('haiku', known)).toEqual(['claude-haiku-4-5']);
    expect(closeNames('something-else-entirely', known)).toEqual([]);
  });

  it('says "Did you mean" with at most three names, or nothing', () => {
    expect(didYouMean('gpt-4.1-mimi', known)).toBe("Did you mean 'gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-4.1'?");
    expect(didYouMean('gpt', ['gpt-a', 'gpt-b', 'gpt-c', 'gpt-d'])).toBe("Did you mean 'gpt-a', 'gpt-b', 'gpt-c'?");
    expect(didYouMean('zzz', known)).toBeNull();
  });
});
