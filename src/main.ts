import { loadEnvFile } from './config/env-file';
import { loadConfig } from './config/load';
import { createLogger } from './logging/logger';
import { startRuntime } from './app/runtime';
import { startSupervisor } from './supervisor/supervisor';
import { startSupervisorMetrics } from './observability/process-metrics-listener';
import { startLoopWatchdog } from './observability/loop-watchdog';
import { waitForDependencies } from './app/startup-checks';

/** A child gets this long past its own grace period to exit after SIGTERM before the supervisor kills it, in ms. */
const CHILD_STOP_MARGIN_MS = 5000;

/** The only module with side effects at start: configuration, connections (or child processes), listening, signals. */
async function main(): Promise<void> {
  loadEnvFile();
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  // Under the supervisor each child looks again (a restarted child may find Redis gone); a look costs one connection each.
  await waitForDependencies(config, logger);
  const supervisorMetrics = config.role === 'all' ? await startSupervisorMetrics({ config: config.observability, logger }) : null;
  // The supervisor's own loop too (each child's runtime starts its own); /metrics aggregates the children, so the supervisor's stalls are logged only.
  if (config.role === 'all') startLoopWatchdog({ thresholdMs: config.eventLoopStallMs, logger });
  const running =
    config.role === 'all'
      ? startSupervisor({
          apiProcesses: config.apiProcesses,
          workerProcesses: config.workerProcesses,
          stopTimeoutMs: config.shutdownGraceMs + CHILD_STOP_MARGIN_MS,
          logger,
        })
      : await startRuntime(config, logger);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'signal received');
    Promise.all([running.stop(), supervisorMetrics?.close()]).then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
