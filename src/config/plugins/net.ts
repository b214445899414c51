import { z } from 'zod';

type Env = Record<string, string | undefined>;

/** Environment variable behind each key of the net configuration, for error messages. */
const ENV_NAMES = {
  ssrfAllowedHosts: 'SSRF_ALLOWED_HOSTS',
  fetchMaxBytes: 'FETCH_MAX_BYTES',
  fetchTimeoutMs: 'FETCH_TIMEOUT_MS',
  pluginCacheTtlSeconds: 'PLUGIN_CACHE_TTL_SECONDS',
  pluginConcurrency: 'PLUGIN_CONCURRENCY',
} as const;

/** `PLUGIN_CONCURRENCY_<BACKEND>`: the backend part of a key (`web-search:searxng` → `SEARXNG`). */
const OVERRIDE_PREFIX = 'PLUGIN_CONCURRENCY_';

/** One `SSRF_ALLOWED_HOSTS` entry: `host`, `host:port`, `[v6]`, `[v6]:port` (a bare v6 address has no port). */
const allowedHostSchema = z
  .string()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[0-9a-fA-F:]*:[0-9a-fA-F:.]*|[A-Za-z0-9.-]+)(:\d{1,5})?$/, 'each entry must be host or host:port');

export const netConfigSchema = z.strictObject({
  /** Hosts the SSRF-safe fetcher may reach although they resolve to internal addresses (operator's own services, test simulators). */
  ssrfAllowedHosts: z.array(allowedHostSchema).default([]),
  /** Largest body an untrusted URL may answer, in bytes, unless the caller sets its own. */
  fetchMaxBytes: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  /** Longest whole call to an untrusted URL (all redirects and the body), in ms: a ceiling, a caller may only shorten it. */
  fetchTimeoutMs: z.coerce.number().int().positive().default(10_000),
  /** How long a plugin's output is reused for the same normalised input, in seconds; 0 turns the cache off. */
  pluginCacheTtlSeconds: z.coerce.number().int().min(0).default(600),
  /** Calls in flight at once to one plugin backend, across all workers, unless the backend has its own number. */
  pluginConcurrency: z.coerce.number().int().positive().default(16),
  /** Per-backend numbers, keyed by the upper-cased backend name (`SEARXNG`, `OPENAI_IMAGES`). */
  pluginConcurrencyOverrides: z.record(z.string(), z.coerce.number().int().positive()).default({}),
});
export type NetConfig = z.infer<typeof netConfigSchema>;

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

function splitList(value: string | undefined): string[] | undefined {
  const text = nonEmpty(value);
  return text === undefined
    ? undefined
    : text
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');
}

function readOverrides(env: Env): Record<string, string> {
  const entries = Object.entries(env).filter((entry): entry is [string, string] => entry[0].startsWith(OVERRIDE_PREFIX) && nonEmpty(entry[1]) !== undefined);
  return Object.fromEntries(entries.map(([name, value]) => [name.slice(OVERRIDE_PREFIX.length), value.trim()]));
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const [head, second] = issue.path.map(String);
  if (head === 'pluginConcurrencyOverrides') return `${OVERRIDE_PREFIX}${second ?? ''}: ${issue.message}`;
  const name = ENV_NAMES[head as keyof typeof ENV_NAMES] ?? head;
  return `${name}: ${issue.message}${second === undefined ? '' : ` (entry ${Number(second) + 1})`}`;
}

/** Reads the fetcher's limits, the plugin cache TTL and the backend concurrency limits; throws naming the variable. */
export function readNetConfig(env: Env): NetConfig {
  const parsed = netConfigSchema.safeParse({
    ssrfAllowedHosts: splitList(env.SSRF_ALLOWED_HOSTS),
    fetchMaxBytes: nonEmpty(env.FETCH_MAX_BYTES),
    fetchTimeoutMs: nonEmpty(env.FETCH_TIMEOUT_MS),
    pluginCacheTtlSeconds: nonEmpty(env.PLUGIN_CACHE_TTL_SECONDS),
    pluginConcurrency: nonEmpty(env.PLUGIN_CONCURRENCY),
    pluginConcurrencyOverrides: readOverrides(env),
  });
  if (!parsed.success) throw new Error(`Invalid configuration:\n${parsed.error.issues.map((issue) => `  - ${describeIssue(issue)}`).join('\n')}`);
  return Object.freeze(parsed.data);
}

/**
 * The concurrency limit of one backend key (`web-search:searxng`, `image-generation-generic:openai`):
 * `PLUGIN_CONCURRENCY_<NAME>` for the part after the colon (upper-cased, `-` as `_`), else the
 * whole key the same way (`WEB_SEARCH_SEARXNG`), else `PLUGIN_CONCURRENCY`.
 */
export function concurrencyFor(config: NetConfig, backendKey: string): number {
  const envName = (part: string) => part.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  const backend = backendKey.includes(':') ? backendKey.slice(backendKey.indexOf(':') + 1) : backendKey;
  return config.pluginConcurrencyOverrides[envName(backend)] ?? config.pluginConcurrencyOverrides[envName(backendKey)] ?? config.pluginConcurrency;
}

/** The fixed variables `readNetConfig` reads (plus any `PLUGIN_CONCURRENCY_<BACKEND>`), for `.env.example`. */
export const NET_ENV_VARIABLES: readonly string[] = Object.values(ENV_NAMES);
