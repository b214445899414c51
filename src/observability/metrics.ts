import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import cluster from 'node:cluster';

/** How often the `nodejs_eventloop_lag_*` histogram samples the loop's delay, in ms. */
const EVENT_LOOP_SAMPLE_MS = 100;

/** Seconds: from a cached answer (ms) to a long generation (minutes). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** What the queue-depth gauges read at scrape time (never per request). */
export interface ScrapeSources {
  /** Jobs per state of each queue. */
  queueDepths(): Promise<{ queue: string; counts: Record<string, number> }[]>;
  /** Models whose breaker is open: cooling down, or past the cooldown and waiting for a probe. */
  openBreakers(): Promise<{ coolingDown: number; halfOpen: number }>;
}

/**
 * Every metric Switchyard exports, in one registry per process. Labels are bounded sets: route
 * templates, queue names, provider and model names from the catalog, Space ids; never anything a
 * request's text could choose. Gauges read at scrape time aggregate across processes by `max` (each
 * process sees the same shared state), counters and histograms by sum.
 */
export class SwitchyardMetrics {
  readonly registry = new Registry();
  private readonly sources = new Set<ScrapeSources>();

  readonly httpRequests = new Counter({
    name: 'switchyard_http_requests_total',
    help: 'HTTP requests answered, by route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'switchyard_http_request_duration_seconds',
    help: 'Time from request to the end of its response (a whole stream), by route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: 'switchyard_job_duration_seconds',
    help: 'Time a worker spent on a job, by queue and outcome (completed or failed).',
    labelNames: ['queue', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly upstreamCalls = new Counter({
    name: 'switchyard_upstream_calls_total',
    help: 'Calls to model providers (each attempt), by provider, model and status (the upstream status, or 499/502/504 for a cancelled, broken or timed-out call).',
    labelNames: ['provider', 'model', 'status'] as const,
    registers: [this.registry],
  });
  readonly upstreamErrors = new Counter({
    name: 'switchyard_upstream_errors_total',
    help: 'Failed calls to model providers, by provider, model and error kind.',
    labelNames: ['provider', 'model', 'kind'] as const,
    registers: [this.registry],
  });
  readonly upstreamDuration = new Histogram({
    name: 'switchyard_upstream_call_duration_seconds',
    help: 'Duration of calls to model providers (a streamed answer: until its last chunk), by provider and model.',
    labelNames: ['provider', 'model'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly upstreamRetries = new Counter({
    name: 'switchyard_upstream_retries_total',
    help: 'Calls that retried the same model after it failed, by provider and model.',
    labelNames: ['provider', 'model'] as const,
    registers: [this.registry],
  });
  readonly upstreamFailovers = new Counter({
    name: 'switchyard_upstream_failovers_total',
    help: 'Calls to a model after another model of the same request failed, by provider and the model failed over to.',
    labelNames: ['provider', 'model'] as const,
    registers: [this.registry],
  });
  readonly pluginRuns = new Counter({
    name: 'switchyard_plugin_runs_total',
    help: 'Plugin runs, by plugin and outcome (ok, cached, failed, unavailable).',
    labelNames: ['plugin', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly completions = new Counter({
    name: 'switchyard_completions_total',
    help: 'Completion requests run by the workers, by Space and final status.',
    labelNames: ['app_id', 'status'] as const,
    registers: [this.registry],
  });
  readonly tokens = new Counter({
    name: 'switchyard_tokens_total',
    help: 'Tokens of answered model calls, by Space and kind (prompt or completion).',
    labelNames: ['app_id', 'kind'] as const,
    registers: [this.registry],
  });
  readonly costUsd = new Counter({
    name: 'switchyard_cost_usd_total',
    help: 'What requests cost (models and plugins), in USD, by Space.',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  /** A counter cannot go down: what a request saved and what it cost beyond the benchmark are counted apart (net = the difference). */
  readonly savingsUsd = new Counter({
    name: 'switchyard_savings_usd_total',
    help: "What requests saved against the Space's benchmark model, in USD, by Space.",
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  readonly overspendUsd = new Counter({
    name: 'switchyard_overspend_usd_total',
    help: "What requests cost beyond the Space's benchmark model (a dearer model was used), in USD, by Space.",
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });

  readonly loopStalls = new Counter({
    name: 'switchyard_event_loop_stalls_total',
    help: 'Times the event loop was held past EVENT_LOOP_STALL_MS (each is also logged with the request that held it).',
    registers: [this.registry],
  });
  readonly loopStallSeconds = new Histogram({
    name: 'switchyard_event_loop_stall_seconds',
    help: 'How long each stall past EVENT_LOOP_STALL_MS held the event loop.',
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  constructor() {
    const sources = this.sources;
    new Gauge({
      name: 'switchyard_queue_jobs',
      help: 'Jobs in each queue, by state (waiting, active, delayed, prioritized, waiting-children, failed).',
      labelNames: ['queue', 'state'] as const,
      aggregator: 'max',
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const source of sources) {
          for (const { queue, counts } of await source.queueDepths()) for (const [state, count] of Object.entries(counts)) this.set({ queue, state }, count);
        }
      },
    });
    new Gauge({
      name: 'switchyard_circuit_breakers_open',
      help: 'Models whose circuit breaker is open: cooling_down (skipped) or half_open (cooldown over, waiting for a probe call).',
      labelNames: ['state'] as const,
      aggregator: 'max',
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const source of sources) {
          const { coolingDown, halfOpen } = await source.openBreakers();
          this.set({ state: 'cooling_down' }, coolingDown);
          this.set({ state: 'half_open' }, halfOpen);
        }
      },
    });
    // The event-loop delay histogram samples every 100 ms, not prom-client's default 10: that timer woke an
    // idle process 100 times a second (its stalls are the loop watchdog's, loop-watchdog.ts).
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  }

  /** Reads queue depths and breakers from these connections at each scrape; the returned function stops it. */
  watch(source: ScrapeSources): () => void {
    this.sources.add(source);
    return () => this.sources.delete(source);
  }
}

let instance: SwitchyardMetrics | undefined;

/**
 * The process's metrics, made on first use. One per process because Prometheus names must be unique
 * in a registry and node:cluster aggregation asks each process for its own; under the supervisor the
 * process also answers the primary's requests for them (prom-client's AggregatorRegistry protocol).
 */
export function metrics(): SwitchyardMetrics {
  if (instance) return instance;
  instance = new SwitchyardMetrics();
  if (cluster.isWorker) {
    AggregatorRegistry.setRegistries([instance.registry]);
    // Constructing one installs prom-client's listener for the primary's requests.
    new AggregatorRegistry();
  }
  return instance;
}
