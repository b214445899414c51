import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry } from 'prom-client';
import { metrics } from './metrics';

/** A scrape's answer: Prometheus text and its content type. */
export interface MetricsText {
  contentType: string;
  body: string;
}

export type MetricsSource = () => Promise<MetricsText>;

/** IPC between a supervised API process and the supervisor: "send me every process's metrics". */
const REQUEST = 'switchyard:metrics-request';
const RESPONSE = 'switchyard:metrics-response';
/** prom-client's own wait for each process is 5 s; the API process waits a little longer for the whole. */
const CLUSTER_WAIT_MS = 7000;

interface ScrapeRequest {
  type: typeof REQUEST;
  id: string;
}

interface ScrapeResponse {
  type: typeof RESPONSE;
  id: string;
  body?: string;
  error?: string;
}

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && 'type' in message && message.type === type;
}

/** This process's own metrics. */
export function processMetricsSource(): MetricsSource {
  const { registry } = metrics();
  return async () => ({ contentType: registry.contentType, body: await registry.metrics() });
}

/** Under the supervisor: every process's metrics, aggregated by the supervisor (prom-client's AggregatorRegistry). */
function supervisedMetricsSource(): MetricsSource {
  const pending = new Map<string, (response: ScrapeResponse) => void>();
  process.on('message', (message: unknown) => {
    if (isMessage<ScrapeResponse>(message, RESPONSE)) pending.get(message.id)?.(message);
  });
  return () =>
    new Promise<MetricsText>((resolve, reject) => {
      const id = randomUUID();
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('the supervisor did not answer with the metrics in time'));
      }, CLUSTER_WAIT_MS);
      pending.set(id, (response) => {
        clearTimeout(timer);
        pending.delete(id);
        if (response.body === undefined) reject(new Error(response.error ?? 'no metrics'));
        else resolve({ contentType: AggregatorRegistry.PROMETHEUS_CONTENT_TYPE, body: response.body });
      });
      process.send?.({ type: REQUEST, id } satisfies ScrapeRequest);
    });
}

/** What `/metrics` serves in this process: all processes' under the supervisor, else its own. */
export function metricsSourceOfThisProcess(): MetricsSource {
  return cluster.isWorker ? supervisedMetricsSource() : processMetricsSource();
}

/**
 * In the supervisor: answers its API processes' requests for the metrics of every process, and gives the
 * same aggregate to its own metrics listener (METRICS_PORT).
 */
export function serveClusterMetrics(): MetricsSource {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage<ScrapeRequest>(message, REQUEST)) return;
    aggregator.clusterMetrics().then(
      (body) => worker.send({ type: RESPONSE, id: message.id, body } satisfies ScrapeResponse),
      (err: unknown) => worker.send({ type: RESPONSE, id: message.id, error: err instanceof Error ? err.message : String(err) } satisfies ScrapeResponse),
    );
  });
  return async () => ({ contentType: aggregator.contentType, body: await aggregator.clusterMetrics() });
}
