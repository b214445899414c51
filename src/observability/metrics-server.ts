import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { MetricsSource } from './metrics-source';
import { scrapeAccess } from './scrape-access';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * METRICS_PORT: a listener that serves only `GET /metrics` (the supervisor's aggregate, or this process's
 * own), bound to METRICS_HOST (loopback by default). With METRICS_TOKEN set it asks for it here too.
 */
export function startMetricsServer({
  port,
  host,
  token,
  source,
  logger,
}: {
  port: number;
  host: string;
  token: string | null;
  source: MetricsSource;
  logger: Logger;
}): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    const access = scrapeAccess(req.headers.authorization, token);
    if (access !== 'allowed') {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('Send METRICS_TOKEN as a bearer token.\n');
      return;
    }
    source().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (err: unknown) => {
        logger.warn({ err }, 'metrics not collected');
        res.writeHead(503, { 'content-type': 'text/plain' }).end('Metrics could not be collected.\n');
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      logger.info({ port: bound, host }, 'metrics listening');
      resolve({ port: bound, close: () => new Promise<void>((done) => server.close(() => done())) });
    });
  });
}
