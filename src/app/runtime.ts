import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { startWorkers, type RunningWorkers } from './start-workers';
import { buildApp } from './app';
import { SERVED_MESSAGES } from '../http/served-messages';
import type { Config } from '../config/schema';
import { testBackendsOf } from '../config/plugins/test-backends';
import { finishesWithin } from '../domain/finishes-within';
import { connectInfrastructure } from './infrastructure';
import { buildServices } from './container';
import { startProcessMetrics } from '../observability/process-metrics-listener';
import { startTracing } from '../observability/tracing';
import { startLoopWatchdog } from '../observability/loop-watchdog';

export interface Runtime {
  /** Bound address of the API, when this process serves it. */
  port: number | null;
  /** Graceful stop: no new requests or jobs, running ones finish (up to the grace period), then connections close. */
  stop(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

async function withDeadline(work: Promise<void>, ms: number, onTimeout: () => void): Promise<void> {
  if (!(await finishesWithin(work, ms))) onTimeout();
}

/** Starts the API, the workers, or both (`single`, or `all` when called in-process as tests do), as `config.role` says. */
export async function startRuntime(config: Readonly<Config>, logger: Logger): Promise<Runtime> {
  // Before the app is built: its tracing middleware exists only when tracing is on.
  const tracing = await startTracing(config.observability, config.role);
  const infra = connectInfrastructure(config, logger);
  const services = buildServices(infra);
  const serveApi = config.role !== 'workers';
  const workers: RunningWorkers | null = config.role !== 'api' ? startWorkers(services) : null;
  const server = serveApi ? createServer(SERVED_MESSAGES, buildApp({ config, logger, services })) : null;
  const port = server ? await listen(server, config.port, config.host) : null;
  const metricsServer = await startProcessMetrics({ config: config.observability, logger });
  const stopWatchdog = startLoopWatchdog({ thresholdMs: config.eventLoopStallMs, logger });
  logger.info({ role: config.role, port }, 'switchyard started');
  const testBackends = testBackendsOf(config.plugins);
  if (testBackends.length > 0)
    logger.warn({ test_backends: testBackends }, 'plugin test backends are on: they answer with fixed test output, not real results');

  return {
    port,
    stop: async () => {
      logger.info('shutting down');
      stopWatchdog();
      const draining = Promise.all([server ? closeServer(server) : undefined, workers?.close()]).then(() => undefined);
      await withDeadline(draining, config.shutdownGraceMs, () => {
        logger.warn({ grace_ms: config.shutdownGraceMs }, 'grace period over; closing remaining connections');
        server?.closeAllConnections();
      });
      services.fileStore.close();
      await Promise.all([infra.close(), metricsServer?.close(), tracing.shutdown()]);
      logger.info('stopped');
    },
  };
}
