import { z } from 'zod';

/** The search services `web-search` can use, chosen by `WEB_SEARCH_BACKEND`. */
export const WEB_SEARCH_BACKENDS = ['searxng', 'brave', 'tavily', 'exa'] as const;
export type WebSearchBackend = (typeof WEB_SEARCH_BACKENDS)[number];
/**
 * `WEB_SEARCH_BACKEND=test`: the built-in test backend, fixed documented results with no network
 * (docs/plugins/web-search.md). Never chosen unless named.
 */
export const WEB_SEARCH_TEST_BACKEND = 'test';

/**
 * Where each backend answers unless `<BACKEND>_BASE_URL` says otherwise. SearXNG has no public default:
 * public instances mostly refuse the JSON format, so an operator points it at their own.
 */
export const WEB_SEARCH_DEFAULT_BASE_URLS: Record<WebSearchBackend, string | null> = {
  searxng: null,
  brave: 'https://api.search.brave.com',
  tavily: 'https://api.tavily.com',
  exa: 'https://api.exa.ai',
};

/**
 * USD per query from each vendor's public pay-as-you-go price (checked November 2026):
 * Brave Search plan $5 / 1,000 requests; Tavily basic search = 1 credit at $0.008; Exa search with
 * contents $7 / 1,000 requests of up to 10 results; a self-hosted SearXNG costs nothing per query.
 */
export const WEB_SEARCH_DEFAULT_COST_USD: Record<WebSearchBackend, number> = {
  searxng: 0,
  brave: 0.005,
  tavily: 0.008,
  exa: 0.007,
};

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const webSearchConfigSchema = z.strictObject({
  backend: z.enum([...WEB_SEARCH_BACKENDS, WEB_SEARCH_TEST_BACKEND]).default('searxng'),
  /** null: not configured (SearXNG without `SEARXNG_BASE_URL`), so the plugin is unavailable; always null for the test backend. */
  baseUrl: z.url({ protocol: /^https?$/ }).nullable(),
  /** null: none given; every backend but SearXNG needs one. */
  apiKey: z.string().min(1).nullable(),
  /** USD charged per query (the backend's price, or `WEB_SEARCH_COST_USD`). */
  costUsd: z.coerce.number().min(0),
  /** Longest wait for the search backend, in ms (the plugin's own deadline may be shorter). */
  timeoutMs: positiveInt(10_000),
  /** Longest wait for one fetched result page, in ms. */
  pageTimeoutMs: positiveInt(5_000),
  /** Largest result page read, in bytes; a larger one is skipped. */
  pageMaxBytes: positiveInt(2 * 1024 * 1024),
  /** Characters of readable text kept per fetched page. */
  pageMaxChars: positiveInt(4_000),
});
export type WebSearchConfig = z.infer<typeof webSearchConfigSchema>;

type Env = Record<string, string | undefined>;

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

/** The environment variable behind each config key, for error messages (the backend-specific ones are filled in). */
function envNames(backend: string): Record<keyof WebSearchConfig, string> {
  const upper = backend.toUpperCase();
  return {
    backend: 'WEB_SEARCH_BACKEND',
    baseUrl: `${upper}_BASE_URL`,
    apiKey: `${upper}_API_KEY`,
    costUsd: 'WEB_SEARCH_COST_USD',
    timeoutMs: 'WEB_SEARCH_TIMEOUT_MS',
    pageTimeoutMs: 'WEB_SEARCH_PAGE_TIMEOUT_MS',
    pageMaxBytes: 'WEB_SEARCH_PAGE_MAX_BYTES',
    pageMaxChars: 'WEB_SEARCH_PAGE_MAX_CHARS',
  };
}

/** Every variable `readWebSearchConfig` may read, for `.env.example` and the config's list. */
export const WEB_SEARCH_ENV_VARIABLES: readonly string[] = [...new Set(WEB_SEARCH_BACKENDS.flatMap((backend) => Object.values(envNames(backend))))].filter(
  (name) => name !== 'SEARXNG_API_KEY',
);

/** The limits every backend shares (defaults filled in by the schema). */
const limitsFrom = (env: Env) => ({
  timeoutMs: nonEmpty(env.WEB_SEARCH_TIMEOUT_MS),
  pageTimeoutMs: nonEmpty(env.WEB_SEARCH_PAGE_TIMEOUT_MS),
  pageMaxBytes: nonEmpty(env.WEB_SEARCH_PAGE_MAX_BYTES),
  pageMaxChars: nonEmpty(env.WEB_SEARCH_PAGE_MAX_CHARS),
});

/** Problems of a parse, one line each, naming the variable behind each key. */
function failure(error: z.ZodError, names: Record<keyof WebSearchConfig, string>): Error {
  const issues = error.issues.map((issue) => `${names[issue.path[0] as keyof WebSearchConfig] ?? String(issue.path[0])}: ${issue.message}`);
  return new Error(`Invalid web-search configuration:\n${issues.map((line) => `  - ${line}`).join('\n')}`);
}

/** The test backend: no base URL or key, free unless `WEB_SEARCH_COST_USD` says otherwise; its pages are never fetched. */
function readTestBackend(env: Env): WebSearchConfig {
  const parsed = webSearchConfigSchema.safeParse({
    backend: WEB_SEARCH_TEST_BACKEND,
    baseUrl: null,
    apiKey: null,
    costUsd: nonEmpty(env.WEB_SEARCH_COST_USD) ?? 0,
    ...limitsFrom(env),
  });
  if (!parsed.success) throw failure(parsed.error, envNames(WEB_SEARCH_TEST_BACKEND));
  return parsed.data;
}

/**
 * Reads `web-search`'s service-wide configuration: the backend, its base URL and key, its price and
 * the limits of fetched pages. Throws an Error naming the variable at fault.
 */
export function readWebSearchConfig(env: Env): WebSearchConfig {
  const backendName = nonEmpty(env.WEB_SEARCH_BACKEND)?.toLowerCase() ?? 'searxng';
  if (backendName === WEB_SEARCH_TEST_BACKEND) return readTestBackend(env);
  const known = (WEB_SEARCH_BACKENDS as readonly string[]).includes(backendName);
  const backend = (known ? backendName : 'searxng') as WebSearchBackend;
  const names = envNames(backendName);
  const parsed = webSearchConfigSchema.safeParse({
    backend: backendName,
    baseUrl: nonEmpty(env[names.baseUrl]) ?? WEB_SEARCH_DEFAULT_BASE_URLS[backend],
    // SearXNG takes no key; reading one would only invite confusion.
    apiKey: backend === 'searxng' ? null : (nonEmpty(env[names.apiKey]) ?? null),
    costUsd: nonEmpty(env.WEB_SEARCH_COST_USD) ?? WEB_SEARCH_DEFAULT_COST_USD[backend],
    ...limitsFrom(env),
  });
  if (!parsed.success) throw failure(parsed.error, names);
  return parsed.data;
}
