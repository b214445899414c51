import type { IRouter } from 'express';
import type { ObservabilityConfig } from '../../config/observability';
import { ApiError } from '../../errors/api-error';
import type { MetricsSource } from '../../observability/metrics-source';
import { scrapeAccess } from '../../observability/scrape-access';

export const METRICS_PATH = '/metrics';

/**
 * `GET /metrics` on the API port, in Prometheus text format. The figures name Spaces, so it is served
 * only with METRICS_TOKEN set, to whoever sends it as a bearer token; otherwise 404 (scrape METRICS_PORT,
 * a loopback listener, instead). Under the supervisor the answer covers every process. Added to the app
 * itself, not as a Router of its own that every API request would enter on its way past.
 */
export function addMetricsRoute(router: IRouter, config: Pick<ObservabilityConfig, 'metricsToken'>, source: MetricsSource): void {
  router.get(METRICS_PATH, async (req, res) => {
    if (config.metricsToken === null) {
      throw new ApiError(
        'not_found',
        'Metrics are not served on the API port unless METRICS_TOKEN is set; see docs/observability.md (METRICS_PORT serves them on loopback).',
      );
    }
    const access = scrapeAccess(req.header('authorization'), config.metricsToken);
    if (access === 'missing')
      throw new ApiError('missing_api_key', "Send METRICS_TOKEN as 'Authorization: Bearer <token>'.", 'Authorization').withHeaders({
        'WWW-Authenticate': 'Bearer',
      });
    if (access === 'invalid')
      throw new ApiError('invalid_api_key', 'The metrics token is not valid.', 'Authorization').withHeaders({ 'WWW-Authenticate': 'Bearer' });
    const { contentType, body } = await source().catch((err: unknown) => {
      req.log.warn({ err }, 'metrics not collected');
      throw new ApiError('service_unavailable', 'The metrics could not be collected; try again shortly.');
    });
    res.set('Content-Type', contentType).send(body);
  });
}
