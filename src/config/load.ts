import type { z } from 'zod';
import { BATCH_ENV_VARIABLES, readBatchConfig } from './batches';
import { OBSERVABILITY_ENV_VARIABLES, readObservabilityConfig } from './observability';
import { ASYNC_JOBS_ENV_VARIABLES, readAsyncJobsConfig } from './async-jobs';
import { MEDIA_ENV_VARIABLES, readMediaConfig } from './plugins/media';
import { NET_ENV_VARIABLES, readNetConfig } from './plugins/net';
import { readSocialPostConfig, SOCIAL_POST_ENV_VARIABLES } from './plugins/social-post';
import { readSpaceSearchConfig, SPACE_SEARCH_ENV_VARIABLES } from './plugins/space-search';
import { readWebSearchConfig, WEB_SEARCH_ENV_VARIABLES } from './plugins/web-search';
import { readSecretsConfig, SECRETS_ENV_VARIABLES } from './secrets';
import { configSchema, DEFAULT_BASE_URLS, PROVIDER_IDS, type Config, type ProviderConfig, type ProviderId } from './schema';

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Environment variable behind each top-level config key, for error messages. */
const ENV_NAMES: Record<string, string> = {
  port: 'PORT',
  host: 'HOST',
  databaseUrl: 'DATABASE_URL',
  databasePoolSize: 'DATABASE_POOL_SIZE',
  redisUrl: 'REDIS_URL',
  redisClusterNodes: 'REDIS_CLUSTER_NODES',
  redisPrefix: 'REDIS_PREFIX',
  completionQueueShards: 'COMPLETION_QUEUE_SHARDS',
  completionJobsKeptOneIn: 'COMPLETION_JOBS_KEPT_ONE_IN',
  logLevel: 'LOG_LEVEL',
  role: 'SWITCHYARD_ROLE',
  apiProcesses: 'API_PROCESSES',
  workerProcesses: 'WORKER_PROCESSES',
  bodyLimitBytes: 'BODY_LIMIT_BYTES',
  shutdownGraceMs: 'SHUTDOWN_GRACE_MS',
  startupWaitMs: 'STARTUP_WAIT_MS',
  autoModelName: 'AUTO_MODEL_NAME',
  routerWeightsFile: 'ROUTER_WEIGHTS_FILE',
  authCacheTtlMs: 'AUTH_CACHE_TTL_MS',
  eventLoopStallMs: 'EVENT_LOOP_STALL_MS',
  trustProxy: 'TRUST_PROXY',
  corsOrigins: 'CORS_ORIGINS',
  authThrottleAddressLimit: 'AUTH_THROTTLE_ADDRESS_LIMIT',
  authThrottlePrefixLimit: 'AUTH_THROTTLE_PREFIX_LIMIT',
  authThrottleWindowSeconds: 'AUTH_THROTTLE_WINDOW_SECONDS',
  completionTimeoutMs: 'COMPLETION_TIMEOUT_MS',
  upstreamTimeoutMs: 'UPSTREAM_TIMEOUT_MS',
  upstreamFirstByteTimeoutMs: 'UPSTREAM_FIRST_BYTE_TIMEOUT_MS',
  breakerMinFailures: 'BREAKER_MIN_FAILURES',
  breakerFailureRatio: 'BREAKER_FAILURE_RATIO',
  breakerWindowMs: 'BREAKER_WINDOW_MS',
  breakerCooldownMs: 'BREAKER_COOLDOWN_MS',
  breakerMaxCooldownMs: 'BREAKER_MAX_COOLDOWN_MS',
  retryBudgetRatio: 'RETRY_BUDGET_RATIO',
  retryBudgetMinRetries: 'RETRY_BUDGET_MIN_RETRIES',
  jobLockMs: 'JOB_LOCK_MS',
  jobStalledCheckMs: 'JOB_STALLED_CHECK_MS',
  completionConcurrency: 'COMPLETION_CONCURRENCY',
  pluginTimeoutMs: 'PLUGIN_TIMEOUT_MS',
};

type Env = Record<string, string | undefined>;

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value === '' ? undefined : value);

function readProviders(env: Env): Record<ProviderId, ProviderConfig> {
  const entries = PROVIDER_IDS.map((id) => {
    const upper = id.toUpperCase();
    return [id, { apiKey: nonEmpty(env[`${upper}_API_KEY`]), baseUrl: nonEmpty(env[`${upper}_BASE_URL`]) ?? DEFAULT_BASE_URLS[id] }];
  });
  return Object.fromEntries(entries) as Record<ProviderId, ProviderConfig>;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const [head, second, third] = issue.path.map(String);
  if (head === 'providers' && second !== undefined) {
    const suffix = third === 'apiKey' ? 'API_KEY' : 'BASE_URL';
    return `${second.toUpperCase()}_${suffix}: ${issue.message}`;
  }
  return `${ENV_NAMES[head ?? ''] ?? head}: ${issue.message}`;
}

/** Each plugin fragment's reader throws an Error naming the variable; all their problems are reported together. */
function fragmentReader(env: Env, issues: string[]) {
  return <T>(reader: (env: Env) => T): T | undefined => {
    try {
      return reader(env);
    } catch (err) {
      issues.push(err instanceof Error ? err.message : String(err));
      return undefined;
    }
  };
}

function readPlugins(env: Env, issues: string[]): Config['plugins'] | undefined {
  const read = fragmentReader(env, issues);
  const plugins = {
    net: read(readNetConfig),
    webSearch: read(readWebSearchConfig),
    spaceSearch: read(readSpaceSearchConfig),
    media: read(readMediaConfig),
    socialPost: read(readSocialPostConfig),
  };
  return issues.length === 0 ? (plugins as Config['plugins']) : undefined;
}

function readBatches(env: Env, issues: string[]): Config['batches'] | undefined {
  try {
    return readBatchConfig(env);
  } catch (err) {
    issues.push(err instanceof Error ? err.message : String(err));
    return undefined;
  }
}

/** Reads and validates the configuration once; the result is frozen and passed explicitly from then on. */
export function loadConfig(env: Env = process.env): Readonly<Config> {
  const pluginIssues: string[] = [];
  const parsed = configSchema.safeParse({
    port: nonEmpty(env.PORT),
    host: nonEmpty(env.HOST),
    databaseUrl: nonEmpty(env.DATABASE_URL) ?? 'postgresql://postgres@127.0.0.1:5432/switchyard',
    databasePoolSize: nonEmpty(env.DATABASE_POOL_SIZE),
    redisUrl: nonEmpty(env.REDIS_URL) ?? 'redis://127.0.0.1:6379',
    redisClusterNodes: nonEmpty(env.REDIS_CLUSTER_NODES),
    redisPrefix: nonEmpty(env.REDIS_PREFIX),
    completionQueueShards: nonEmpty(env.COMPLETION_QUEUE_SHARDS),
    completionJobsKeptOneIn: nonEmpty(env.COMPLETION_JOBS_KEPT_ONE_IN),
    logLevel: nonEmpty(env.LOG_LEVEL),
    role: nonEmpty(env.SWITCHYARD_ROLE),
    apiProcesses: nonEmpty(env.API_PROCESSES),
    workerProcesses: nonEmpty(env.WORKER_PROCESSES),
    bodyLimitBytes: nonEmpty(env.BODY_LIMIT_BYTES),
    shutdownGraceMs: nonEmpty(env.SHUTDOWN_GRACE_MS),
    startupWaitMs: nonEmpty(env.STARTUP_WAIT_MS),
    autoModelName: nonEmpty(env.AUTO_MODEL_NAME),
    routerWeightsFile: nonEmpty(env.ROUTER_WEIGHTS_FILE),
    authCacheTtlMs: nonEmpty(env.AUTH_CACHE_TTL_MS),
    eventLoopStallMs: nonEmpty(env.EVENT_LOOP_STALL_MS),
    trustProxy: nonEmpty(env.TRUST_PROXY),
    corsOrigins: nonEmpty(env.CORS_ORIGINS),
    authThrottleAddressLimit: nonEmpty(env.AUTH_THROTTLE_ADDRESS_LIMIT),
    authThrottlePrefixLimit: nonEmpty(env.AUTH_THROTTLE_PREFIX_LIMIT),
    authThrottleWindowSeconds: nonEmpty(env.AUTH_THROTTLE_WINDOW_SECONDS),
    completionTimeoutMs: nonEmpty(env.COMPLETION_TIMEOUT_MS),
    upstreamTimeoutMs: nonEmpty(env.UPSTREAM_TIMEOUT_MS),
    upstreamFirstByteTimeoutMs: nonEmpty(env.UPSTREAM_FIRST_BYTE_TIMEOUT_MS),
    breakerMinFailures: nonEmpty(env.BREAKER_MIN_FAILURES),
    breakerFailureRatio: nonEmpty(env.BREAKER_FAILURE_RATIO),
    breakerWindowMs: nonEmpty(env.BREAKER_WINDOW_MS),
    breakerCooldownMs: nonEmpty(env.BREAKER_COOLDOWN_MS),
    breakerMaxCooldownMs: nonEmpty(env.BREAKER_MAX_COOLDOWN_MS),
    retryBudgetRatio: nonEmpty(env.RETRY_BUDGET_RATIO),
    retryBudgetMinRetries: nonEmpty(env.RETRY_BUDGET_MIN_RETRIES),
    jobLockMs: nonEmpty(env.JOB_LOCK_MS),
    jobStalledCheckMs: nonEmpty(env.JOB_STALLED_CHECK_MS),
    completionConcurrency: nonEmpty(env.COMPLETION_CONCURRENCY),
    providers: readProviders(env),
    pluginTimeoutMs: nonEmpty(env.PLUGIN_TIMEOUT_MS),
    asyncJobs: fragmentReader(env, pluginIssues)(readAsyncJobsConfig),
    plugins: readPlugins(env, pluginIssues),
    batches: readBatches(env, pluginIssues),
    observability: fragmentReader(env, pluginIssues)(readObservabilityConfig),
    secrets: fragmentReader(env, pluginIssues)(readSecretsConfig),
  });
  if (pluginIssues.length > 0) throw new ConfigError(pluginIssues);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map(describeIssue));
  return Object.freeze(parsed.data);
}

/** Every environment variable `loadConfig` reads; `.env.example` documents each (its test checks). */
export const ENV_VARIABLES: readonly string[] = [
  ...Object.values(ENV_NAMES),
  ...PROVIDER_IDS.flatMap((id) => [`${id.toUpperCase()}_API_KEY`, `${id.toUpperCase()}_BASE_URL`]),
  ...NET_ENV_VARIABLES,
  ...WEB_SEARCH_ENV_VARIABLES,
  ...SPACE_SEARCH_ENV_VARIABLES,
  ...MEDIA_ENV_VARIABLES,
  ...SOCIAL_POST_ENV_VARIABLES,
  ...SECRETS_ENV_VARIABLES,
  ...BATCH_ENV_VARIABLES,
  ...ASYNC_JOBS_ENV_VARIABLES,
  ...OBSERVABILITY_ENV_VARIABLES,
];
