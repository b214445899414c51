import type { LookupFunction } from 'node:net';
import { LRUCache } from 'lru-cache';
import { PROVIDER_IDS, type Config } from '../config/schema';
import type { Unavailability } from '../domain/model-availability';
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
  /**
   * Why `resolve` answers null for this target, or null when it resolves: computed from the
   * configuration once per process (per model version for custom models). Only error paths and
   * listings ask. Test doubles that never refuse a target may leave it out.
   */
  explain?(target: ProviderTarget): Unavailability | null;
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

/** A custom model's binding: the adapter of its provider with the model's own base URL and opened key; else why not. */
function endpointBinding(target: ProviderTarget & { endpoint: ModelEndpoint }, deps: EndpointDeps): ProviderBinding | Unavailability {
  const provider = deps.providers.get(target.provider);
  if (!provider) return { code: 'provider_unknown', message: `provider '${target.provider}' is not supported by this service` };
  const access = endpointAccess(target.endpoint.baseUrl, deps.allowlist);
  if ('refused' in access)
    return { code: 'custom_model_endpoint_refused', message: `its base URL is refused: ${access.refused} (SSRF_ALLOWED_HOSTS can allow it)` };
  const sealed = target.endpoint.sealedApiKey;
  let apiKey = '';
  if (sealed !== null) {
    if (!deps.secrets || target.id === undefined)
      return { code: 'custom_model_key_unreadable', message: 'its API key cannot be opened: PLUGIN_SECRETS_KEY is not set' };
    try {
      apiKey = deps.secrets.open(sealed, customModelKeyContext(target.id));
    } catch {
      return {
        code: 'custom_model_key_unreadable',
        message: 'its API key cannot be opened with the PLUGIN_SECRETS_KEY this service holds (set it again on the custom model)',
      };
    }
  }
  return { provider, apiKey, baseUrl: target.endpoint.baseUrl, lookup: access.lookup };
}

const KEYED: ReadonlySet<string> = new Set(PROVIDER_IDS);

/** Why a catalog provider has no binding: no key set, or no adapter at all. */
function providerProblem(id: string, providers: Map<string, Provider>): Unavailability {
  if (!providers.has(id)) return { code: 'provider_unknown', message: `provider '${id}' is not supported by this service` };
  if (!KEYED.has(id)) return { code: 'provider_unknown', message: `provider '${id}' serves custom models only (each with its own base URL)` };
  return { code: 'provider_key_missing', message: `${id.toUpperCase()}_API_KEY is not set` };
}

const isBinding = (value: ProviderBinding | Unavailability): value is ProviderBinding => 'provider' in value;

export function createProviderRegistry(config: Readonly<Config>, providers: Map<string, Provider> = builtInProviders()): Required<ProviderRegistry> {
  const bindings = new Map<string, ProviderBinding>();
  for (const [id, provider] of providers) {
    const settings = config.providers[id as keyof Config['providers']];
    const apiKey = settings?.apiKey ?? (KEYLESS.has(id) ? '' : undefined);
    if (apiKey === undefined) continue;
    bindings.set(id, { provider, apiKey, baseUrl: settings?.baseUrl ?? '' });
  }
  const deps: EndpointDeps = {
    providers,
    secrets: secretBoxFor(config.secrets.keys),
    allowlist: new HostAllowlist(config.plugins.net.ssrfAllowedHosts),
  };
  // A binding that cannot be used is kept too, with why: lru-cache holds no null.
  const custom = new LRUCache<string, ProviderBinding | Unavailability>({ max: MAX_CUSTOM_BINDINGS });
  const customBinding = (target: ProviderTarget & { endpoint: ModelEndpoint }): ProviderBinding | Unavailability => {
    // The router asks for every candidate of every request: open a key and parse a URL once per version of the model.
    const key = `${target.id ?? ''}\n${target.provider}\n${target.endpoint.baseUrl}\n${target.endpoint.sealedApiKey ?? ''}`;
    let binding = custom.get(key);
    if (binding === undefined) {
      binding = endpointBinding(target, deps);
      custom.set(key, binding);
    }
    return binding;
  };
  return {
    resolve: (target) => {
      if (!target.endpoint) return bindings.get(target.provider) ?? null;
      const binding = customBinding({ ...target, endpoint: target.endpoint });
      return isBinding(binding) ? binding : null;
    },
    explain: (target) => {
      if (!target.endpoint) return bindings.has(target.provider) ? null : providerProblem(target.provider, providers);
      const binding = customBinding({ ...target, endpoint: target.endpoint });
      return isBinding(binding) ? null : binding;
    },
  };
}
