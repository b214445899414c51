import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { batchConfigSchema } from './batches';
import { DEFAULT_WEIGHTS_FILE } from './weights-location';
import { asyncJobsConfigSchema } from './async-jobs';
import { mediaConfigSchema } from './plugins/media';
import { netConfigSchema } from './plugins/net';
import { redisClusterNodesSchema } from './redis-cluster';
import { secretsConfigSchema } from './secrets';
import { socialPostConfigSchema } from './plugins/social-post';
import { spaceSearchConfigSchema } from './plugins/space-search';
import { webSearchConfigSchema } from './plugins/web-search';
import { PROVIDER_IDS } from './providers';
import { corsOriginsSchema } from './cors-origins';
import { trustProxySchema } from './trust-proxy';
import { observabilityConfigSchema } from './observability';

export { DEFAULT_BASE_URLS, PROVIDER_IDS, type ProviderId } from './providers';

/**
 * `all`: as `npm start` runs it, a supervisor starting `API_PROCESSES` API and `WORKER_PROCESSES` worker
 * processes (restarted when they crash); `api` or `workers`: that one role in this one process (containers);
 * `single`: API and workers in this one process (small machines, development).
 */
export const PROCESS_ROLES = ['all', 'api', 'workers', 'single'] as const;

/**
 * Processes per role under the supervisor: half the cores each by default (at least one), so API and
 * worker processes together match the cores. Measured on 2 cores (docs/deployment.md): 2 + 2 processes
 * answered 0.35–0.87× the completions/s of 1 + 1, in the same run, since Redis, PostgreSQL and the
 * upstream want the same cores.
 */
export const DEFAULT_PROCESSES_PER_ROLE = Math.max(1, Math.floor(availableParallelism() / 2));
const processCount = () => z.coerce.number().int().min(1).max(256).default(DEFAULT_PROCESSES_PER_ROLE);

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const providerConfigSchema = z.object({
  apiKey: z.string().min(1).optional(),
  baseUrl: z.url(),
});
export type ProviderConfig = z.infer<typeof providerConfigSchema>;

export const configSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8080),
  host: z.string().default('0.0.0.0'),
  databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL'),
  /** PostgreSQL connections each process may open (its pool): count processes × this against max_connections. */
  databasePoolSize: z.coerce.number().int().min(2).max(500).default(10),
  redisUrl: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL'),
  /** Seed nodes of a Redis Cluster (`REDIS_CLUSTER_NODES`); empty for one Redis server at `redisUrl`. */
  redisClusterNodes: redisClusterNodesSchema,
  /** Prefix of every Redis key and BullMQ queue, so several deployments can share one Redis (hash-tagged on a cluster). */
  redisPrefix: z.string().min(1).default('switchyard'),
  /** Shards of the completion queue (`COMPLETION_QUEUE_SHARDS`); unset: 1 on one Redis server, 6 on a cluster (completionShardCount). */
  completionQueueShards: z.coerce.number().int().min(1).max(64).optional(),
  /** One finished completion job in this many is kept in Redis for bull-board, the rest removed as they complete (`COMPLETION_JOBS_KEPT_ONE_IN`; 1: all, 0: none; see queue/kept-jobs.ts). */
  completionJobsKeptOneIn: z.coerce.number().int().min(0).max(1_000_000).default(10),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  role: z.enum(PROCESS_ROLES).default('all'),
  /** API processes the supervisor (`SWITCHYARD_ROLE=all`) runs; they share the port. */
  apiProcesses: processCount(),
  /** Worker processes the supervisor runs, each with `COMPLETION_CONCURRENCY` completion jobs at once. */
  workerProcesses: processCount(),
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: positiveInt(1_048_576),
  /** How long SIGTERM waits for running requests and jobs before exiting, in ms. */
  shutdownGraceMs: positiveInt(30_000),
  /** How long a starting process waits for PostgreSQL, Redis and the migrations before it gives up, in ms (0: check once). */
  startupWaitMs: z.coerce.number().int().min(0).default(30_000),
  /** A process whose event loop is held this long, in ms, counts and logs a stall (with the request that held it). */
  eventLoopStallMs: positiveInt(200),
  /** How long a resolved API key is reused in one process, in ms (revocation takes at most this long). */
  authCacheTtlMs: z.coerce.number().int().min(0).default(5000),
  /** Which proxies may name the client address (X-Forwarded-For), as Express's `trust proxy`. */
  trustProxy: trustProxySchema,
  corsOrigins: corsOriginsSchema,
  /** Failed authentications one client address may make per window before it is answered 429; 0 = no limit. */
  authThrottleAddressLimit: z.coerce.number().int().min(0).default(50),
  /** Failed authentications with one key prefix (any address) per window before it is answered 429; 0 = no limit. */
  authThrottlePrefixLimit: z.coerce.number().int().min(0).default(10),
  /** The failed-authentication window, and how long a throttled address or prefix stays throttled, in seconds. */
  authThrottleWindowSeconds: positiveInt(300),
  /** How long a completion request may take end to end before it answers 504, in ms. */
  completionTimeoutMs: positiveInt(600_000),
  /** Default longest wait for an upstream's whole call, in ms (a Space's `policies.upstream_timeout_ms` overrides it). */
  upstreamTimeoutMs: positiveInt(300_000),
  /**
   * Default longest wait for an upstream's first byte, and for its next byte inside a stream, in ms
   * (a Space's `policies.first_byte_timeout_ms` overrides it).
   */
  upstreamFirstByteTimeoutMs: positiveInt(15_000),
  /** Failures of one model within a breaker window that may open its circuit breaker. */
  breakerMinFailures: positiveInt(5),
  /** Share of a window's calls to one model that must have failed to open its breaker (0 to 1). */
  breakerFailureRatio: z.coerce.number().gt(0).max(1).default(0.5),
  /** Length of a breaker's counting window, in ms. */
  breakerWindowMs: positiveInt(10_000),
  /** How long an opened breaker skips its model before one probe call, in ms; doubled after each failed probe. */
  breakerCooldownMs: positiveInt(5_000),
  /** Longest cooldown after repeated failed probes, in ms. */
  breakerMaxCooldownMs: positiveInt(60_000),
  /** Share of a model's calls of the last 10 s that may fail before retries and failovers to it beyond a request's second call are withheld (per worker process). */
  retryBudgetRatio: z.coerce.number().min(0).max(10).default(0.2),
  /** Failures a model may always have within 10 s before retries and failovers to it beyond a request's second call are withheld. */
  retryBudgetMinRetries: z.coerce.number().int().min(0).default(10),
  /**
   * How long a worker's lock on a queue job lasts without renewal, in ms (renewed at half that). A
   * worker that died is noticed sooner by its Redis connection; this covers one that Redis cannot see die.
   */
  jobLockMs: z.coerce.number().int().min(1000).default(30_000),
  /** How often workers look for jobs whose worker died, in ms. */
  jobStalledCheckMs: z.coerce.number().int().min(100).default(1_000),
  /** Completion jobs one worker process runs at once (they wait on the network, not the CPU). */
  completionConcurrency: positiveInt(256),
  /** Name clients send as `model` to ask for automatic selection. */
  autoModelName: z.string().min(1).default('switchyard'),
  /** The learned router's weights file (written by `npm run router:train`). */
  routerWeightsFile: z.string().min(1).default(DEFAULT_WEIGHTS_FILE),
  providers: z.record(z.enum(PROVIDER_IDS), providerConfigSchema),
  /** Longest plugin run, in ms (the request's deadline may cut it shorter). */
  pluginTimeoutMs: positiveInt(20_000),
  /** OpenAI Files and Batches: file storage, limits, batch concurrency (`src/config/batches.ts`). */
  batches: batchConfigSchema,
  /** `Prefer: respond-async` jobs: how long results are kept, and how webhooks are delivered (`src/config/async-jobs.ts`). */
  asyncJobs: asyncJobsConfigSchema,
  /** Metrics access and listener, and OpenTelemetry export (`src/config/observability.ts`). */
  observability: observabilityConfigSchema,
  /** The key that seals Space secrets: social accounts, webhook signing secrets, custom models' API keys (`src/config/secrets.ts`). */
  secrets: secretsConfigSchema,
  /** The plugins' backends and limits, each read by its own fragment (`src/config/plugins/`). */
  plugins: z.object({
    net: netConfigSchema,
    webSearch: webSearchConfigSchema,
    spaceSearch: spaceSearchConfigSchema,
    media: mediaConfigSchema,
    socialPost: socialPostConfigSchema,
  }),
});
export type Config = z.infer<typeof configSchema>;
