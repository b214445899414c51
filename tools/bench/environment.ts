import { deleteKeysUnder } from '../../scripts/redis-keys';
import { seedCatalog } from '../../prisma/seed-catalog';
import { DEFAULT_POLICIES } from '../../src/schemas/stored-space-config';
import { bootstrapTenant } from '../../src/services/tenancy/bootstrap';
import { createDb, type Db } from '../../src/store/db';
import { migrate } from '../../src/store/migrations';
import { createDatabase, databaseUrlFor, dropDatabase, TEST_REDIS_URL, uniqueSuffix } from '../../test/helpers/test-database';

/** The model the benchmark Space answers with by default: the only one active, so routing is trivial. */
export const BENCH_MODEL = 'gpt-4o-mini';

/** Providers that speak OpenAI's format, so the upstream's `/openai/v1` can stand in for them. */
const OPENAI_FORMAT = new Set(['openai', 'mistral', 'groq', 'together', 'deepseek', 'fireworks', 'xai', 'openrouter']);

/** A throwaway database and Redis prefix with one tenant whose Space has one active OpenAI model. */
export interface BenchEnvironment {
  databaseName: string;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  apiKey: string;
  appId: string;
  orgId: string;
  /** The active model's name and provider (the provider's key and base URL must point at the upstream). */
  model: { name: string; provider: string };
  /** Request logs in the database (parents, children), to check that logging kept up. */
  countLogs(): Promise<{ parents: number; children: number }>;
  destroy(): Promise<void>;
}

/** Only the bench model is active in the Space; every other catalog model is switched off. */
async function activateOnly(db: Db, appId: string, name: string): Promise<{ name: string; provider: string }> {
  const model = await db.model.findFirst({ where: { model: name, app_id: null, org_id: null } });
  if (!model) throw new Error(`catalog model ${name} not found`);
  if (!OPENAI_FORMAT.has(model.provider)) throw new Error(`${name} is served by ${model.provider}, which does not speak OpenAI's format`);
  await db.appModel.updateMany({ where: { app_id: appId, NOT: { model_id: model.id } }, data: { active: false } });
  await db.appModel.upsert({
    where: { app_id_model_id: { app_id: appId, model_id: model.id } },
    create: { app_id: appId, model_id: model.id, active: true },
    update: { active: true },
  });
  return { name: model.model, provider: model.provider };
}

/**
 * `privacyLevel` 1 (the default) logs every request in full, as production does; 3 writes no log at all,
 * which shows what logging costs (it needs a GDPR model, e.g. mistral-small-2506).
 */
export async function createBenchEnvironment({ privacyLevel = 1, model = BENCH_MODEL }: { privacyLevel?: number; model?: string } = {}): Promise<BenchEnvironment> {
  const suffix = uniqueSuffix();
  const databaseName = `switchyard_bench_${suffix}`;
  const databaseUrl = databaseUrlFor(databaseName);
  const redisPrefix = `sybench_${suffix}`;
  let db: Db | undefined;
  const destroy = async () => {
    await db?.$disconnect().catch(() => undefined);
    await dropDatabase(databaseName);
    await deleteKeysUnder(TEST_REDIS_URL, redisPrefix);
  };
  await createDatabase(databaseName);
  try {
    await migrate(databaseUrl);
    await seedCatalog(databaseUrl);
    db = createDb(databaseUrl, 2);
    const tenant = await bootstrapTenant(db, { org: `bench-${suffix}`, space: 'bench', rateLimit: 0 });
    const active = await activateOnly(db, tenant.app_id, model);
    await db.app.update({ where: { id: tenant.app_id }, data: { policies: { ...DEFAULT_POLICIES, privacy_level: privacyLevel } } });
    const logDb = db;
    return {
      databaseName,
      databaseUrl,
      redisUrl: TEST_REDIS_URL,
      redisPrefix,
      apiKey: tenant.api_key,
      appId: tenant.app_id,
      orgId: tenant.org_id,
      model: active,
      countLogs: async () => ({
        parents: await logDb.log.count({ where: { app_id: tenant.app_id, parent_id: null } }),
        children: await logDb.log.count({ where: { app_id: tenant.app_id, NOT: { parent_id: null } } }),
      }),
      destroy,
    };
  } catch (err) {
    await destroy().catch(() => undefined);
    throw err;
  }
}
