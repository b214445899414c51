import cluster from 'node:cluster';
import type { Logger } from 'pino';
import type { ObservabilityConfig } from '../config/observability';
import { processMetricsSource, serveClusterMetrics } from './metrics-source';
import { startMetricsServer, type MetricsServer } from './metrics-server';

type Options = { config: Pick<ObservabilityConfig, 'metricsPort' | 'metricsHost' | 'metricsToken'>; logger: Logger };

/**
 * The supervisor (SWITCHYARD_ROLE=all): answers its API processes' `/metrics` with every process's
 * metrics, and serves the same on METRICS_PORT when set.
 */
export async function startSupervisorMetrics({ config, logger }: Options): Promise<MetricsServer | null> {
  const source = serveClusterMetrics();
  if (config.metricsPort === null) return null;
  return startMetricsServer({ port: config.metricsPort, host: config.metricsHost, token: config.metricsToken, source, logger });
}

/**
 * A lone process (api, workers or single) serves its own metrics on METRICS_PORT when set; the only way
 * to scrape a workers-only container. Under the supervisor the supervisor holds that port instead.
 */
export async function startProcessMetrics({ config, logger }: Options): Promise<MetricsServer | null> {
  if (config.metricsPort === null || cluster.isWorker) return null;
  return startMetricsServer({ port: config.metricsPort, host: config.metricsHost, token: config.metricsToken, source: processMetricsSource(), logger });
}
