import type { LookupFunction } from 'node:net';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config/schema';
import type { ModelEndpoint } from '../domain/routable-model';
import { endpointAccess } from '../net/endpoint-policy';
import { HostAllowlist } from '../net/host-allowlist';
import { customModelKeyContext } from '../secrets/custom-model-key';
import { secretBoxFor, type SecretBox } from '../secrets/secret-box';
import { anthropicProvider } from './anthropic/provider';
import { geminiProvider } from './gemini/provider';
import { OpenAiCompatibleProvider } from './openai-compatible/provider';
import { GENERIC_OPENAI_COMPATIBLE_VENDOR, OPENAI_COMPATIBLE_VENDORS } from './openai-compatible/vendors';
import { testProvider } from './test/provider';
import type { Provider } from './types';

/** A provider ready to call: its adapter and where and how to reach it. */
export interface ProviderBinding {
  provider: Provider;
  apiKey: string;
  baseUrl: string;
  /** A tenant-given endpoint's host resolution, refusing internal addresses. */
  lookup?: LookupFunction;
}

/** What the registry needs to know of a model: its provider and, for a custom model, its own endpoint. */
export interface ProviderTarget {
  id?: string;
  provider: string;
  endpoint?: ModelEndpoint;
}

export interface ProviderRegistry {
  /**
   * Null when the provider is unknown or has no API key configured, or a custom model's endpoint
   * cannot be used (its key does not open, its address is refused): its models are unavailable, not broken.
   */
  resolve(target: ProviderTarget): ProviderBinding | null;
}

/** Custom model bindings kept per process; past this many (model versions), the least recently used go. */
const MAX_CUSTOM_BINDINGS = 1000;

/** Providers that need no key (they run locally). */
const KEYLESS = new Set(['test', 'ollama', 'vllm']);

/** Every adapter, by the provider id the catalog uses. The only place that names adapters. */
export function builtInProviders(): Map<string, Provider> {
  const providers = new Map<string, Provider>();
  providers.set(anthropicProvider.id, anthropicProvider);
  providers.set(geminiProvider.id, geminiProvider);
  for (const vendor of [...OPENAI_COMPATIBLE_VENDORS, GENERIC_OPENAI_COMPATIBLE_VENDOR]) providers.set(vendor.id, new OpenAiCompatibleProvider(vendor));
  providers.set(testProvider.id, testProvider);
  return providers;
}

interface EndpointDeps {
  providers: Map<string, Provider>;
  secrets: SecretBox | null;
  allowlist: HostAllowlist;
}

/** A custom model's binding: the adapter of its provider with the model's own base URL and opened key. */
function endpointBinding(target: ProviderTarget & { endpoint: ModelEndpoint }, deps: EndpointDeps): ProviderBinding | null {
  const provider = deps.providers.get(target.provider);
  const access = endpointAccess(target.endpoint.baseUrl, deps.allowlist);
  if (!provider || 'refused' in access) return null;
  const sealed = target.endpoint.sealedApiKey;
  let apiKey = '';
  if (sealed !== null) {
    if (!deps.secrets || target.id === undefined) return null;
    try {
      apiKey = deps.secrets.open(sealed, customModelKeyContext(target.id));
    } catch {
      return null;
    }
  }
  return { provider, apiKey, baseUrl: target.endpoint.baseUrl, lookup: access.lookup };
}

export function createProviderRegistry(config: Readonly<Config>, providers: Map<string, Provider> = builtInProviders()): ProviderRegistry {
  const bindings = new Map<string, ProviderBinding>();
  for (const [id, provider] of providers) {
    const settings = config.providers[id as keyof Config['providers']];
    const apiKey = settings?.apiKey ?? (KEYLESS.has(id) ? '' : undefined);
    if (apiKey === undefined) continue;
    bindings.set(id, { provider, apiKey, baseUrl: settings?.baseUrl ?? '' });
  }
  const deps: EndpointDeps = {
    providers,
    secrets: secretBoxFor(config.plugins.socialPost.secretKeys),
    allowlist: new HostAllowlist(config.plugins.net.ssrfAllowedHosts),
  };
  // A binding that cannot be used is kept too (as `unusable`): lru-cache holds no null.
  const custom = new LRUCache<string, ProviderBinding | 'unusable'>({ max: MAX_CUSTOM_BINDINGS });
  const customBinding = (target: ProviderTarget & { endpoint: ModelEndpoint }): ProviderBinding | null => {
    // The router asks for every candidate of every request: open a key and parse a URL once per version of the model.
    const key = `${target.id ?? ''}\n${target.provider}\n${target.endpoint.baseUrl}\n${target.endpoint.sealedApiKey ?? ''}`;
    let binding = custom.get(key);
    if (binding === undefined) {
      binding = endpointBinding(target, deps) ?? 'unusable';
      custom.set(key, binding);
    }
    return binding === 'unusable' ? null : binding;
  };
  return {
    resolve: (target) => (target.endpoint ? customBinding({ ...target, endpoint: target.endpoint }) : (bindings.get(target.provider) ?? null)),
  };
}
