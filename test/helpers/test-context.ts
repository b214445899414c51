import type { Express } from 'express';
import type { Logger } from 'pino';
import { buildApp } from '../../src/app/app';
import { loadConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { connectInfrastructure } from '../../src/app/infrastructure';
import { createLogger } from '../../src/logging/logger';
import { buildServices, type PluginServiceOptions, type Services } from '../../src/app/container';
import { bootstrapTenant, type BootstrapInput, type BootstrapResult } from '../../src/services/tenancy/bootstrap';
import { uniqueSuffix } from './test-database';

export interface TestContext {
  app: Express;
  services: Services;
  /** A new organization with a Space and an owner key. */
  tenant(input?: Partial<BootstrapInput>): Promise<Tenant>;
  close(): Promise<void>;
}

export interface Tenant extends BootstrapResult {
  auth: { Authorization: string };
}

export interface TestContextOptions {
  /** Instead of the silent default, e.g. a logger writing to a buffer the test reads. */
  logger?: Logger;
  /** The plugins' service-wide parts (e.g. the box that seals Space credentials). */
  plugins?: PluginServiceOptions;
}

/**
 * The real app against the run's database and Redis prefix (see global-setup). Every finished completion
 * job is kept (COMPLETION_JOBS_KEPT_ONE_IN=1, not the service's sample), so a test can read what its worker
 * received; test/integration/job-retention.test.ts covers the sample.
 */
export function createTestContext(overrides: Partial<Config> = {}, options: TestContextOptions = {}): TestContext {
  const config = { ...loadConfig(), completionJobsKeptOneIn: 1, ...overrides };
  const logger = options.logger ?? createLogger(config.logLevel);
  const infra = connectInfrastructure(config, logger);
  const services = buildServices(infra, options.plugins);
  return {
    app: buildApp({ config, logger, services }),
    services,
    tenant: async (input = {}) => {
      const result = await bootstrapTenant(infra.db, { org: `org-${uniqueSuffix()}`, space: 'main', ...input });
      return { ...result, auth: { Authorization: `Bearer ${result.api_key}` } };
    },
    close: async () => {
      services.fileStore.close();
      await infra.close();
    },
  };
}
