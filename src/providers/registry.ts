import type { Config } from '../config/schema';
import { anthropicProvider } from './anthropic/provider';
import { geminiProvider } from './gemini/provider';
import { OpenAiCompatibleProvider } from './openai-compatible/provider';
import { OPENAI_COMPATIBLE_VENDORS } from './openai-compatible/vendors';
import { testProvider } from './test/provider';
import type { Provider } from './types';

/** A provider ready to call: its adapter and where and how to reach it. */
export interface ProviderBinding {
  provider: Provider;
  apiKey: string;
  baseUrl: string;
}

export interface ProviderRegistry {
  /** Null when the provider is unknown or has no API key configured: its models are unavailable, not broken. */
  resolve(providerId: string): ProviderBinding | null;
}

/** Providers that need no key (they run locally). */
const KEYLESS = new Set(['test', 'ollama', 'vllm']);

/** Every adapter, by the provider id the catalog uses. The only place that names adapters. */
export function builtInProviders(): Map<string, Provider> {
  const providers = new Map<string, Provider>();
  providers.set(anthropicProvider.id, anthropicProvider);
  providers.set(geminiProvider.id, geminiProvider);
  for (const vendor of OPENAI_COMPATIBLE_VENDORS) providers.set(vendor.id, new OpenAiCompatibleProvider(vendor));
  providers.set(testProvider.id, testProvider);
  return providers;
}

export function createProviderRegistry(config: Readonly<Config>, providers: Map<string, Provider> = builtInProviders()): ProviderRegistry {
  const bindings = new Map<string, ProviderBinding>();
  for (const [id, provider] of providers) {
    const settings = config.providers[id as keyof Config['providers']];
    const apiKey = settings?.apiKey ?? (KEYLESS.has(id) ? '' : undefined);
    if (apiKey === undefined) continue;
    bindings.set(id, { provider, apiKey, baseUrl: settings?.baseUrl ?? '' });
  }
  return { resolve: (providerId) => bindings.get(providerId) ?? null };
}
