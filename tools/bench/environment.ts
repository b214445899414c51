import { deleteKeysUnder } from '../../scripts/redis-keys';
import { seedCatalog } from '../../prisma/seed-catalog';
import { DEFAULT_POLICIES } from '../../src/schemas/stored-space-config';
import { bootstrapTenant } from '../../src/services/tenancy/bootstrap';
import { createDb, type Db } from '../../src/store/db';
import { migrate } from '../../src/store/migrations';
import { createDatabase, databaseUrlFor, dropDatabase, TEST_REDIS_URL, uniqueSuffix } from '../../test/helpers/test-database';

/** The model named by `--routing named`, and by the paths that need a model name (direct, Portkey). */
export const BENCH_MODEL = 'gpt-4o-mini';

/**
 * The Space's active models under `--routing auto` (the default, issue 20's configuration): several
 * OpenAI models, so every request is routed among them (scores, the learned router's profile) while
 * one base URL (OPENAI_BASE_URL) points them all at the upstream.
 */
export const AUTO_ROUTED_MODELS = ['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-4o'];

/**
 * The Space's rate limit, in requests per minute: set, as users run it, and far above what the bench
 * sends (64 clients at a few thousand completions/s), so it counts every request and refuses none.
 */
export const BENCH_RATE_LIMIT = 10_000_000;

/** How the bench's requests choose their model: `auto` leaves it to Switchyard's routing; `named` names BENCH_MODEL. */
export type BenchRouting = 'auto' | 'named';

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
  /** The named model's name and provider (the provider's key and base URL must point at the upstream). */
  model: { name: string; provider: string };
  /** The `model` Switchyard's requests send: undefined under `--routing auto` (automatic choice among AUTO_ROUTED_MODELS). */
  requestModel: string | undefined;
  /** The models a Switchyard answer may name. */
  activeModels: string[];
  /** Request logs in the database (parents, children), to check that logging kept up. */
  countLogs(): Promise<{ parents: number; children: number }>;
  destroy(): Promise<void>;
}

/** Only the given models are active in the Space; every other catalog model is switched off. They must share a provider (one base URL). */
async function activateOnly(db: Db, appId: string, names: string[]): Promise<{ name: string; provider: string }[]> {
  const models = await Promise.all(
    names.map(async (name) => {
      const model = await db.model.findFirst({ where: { model: name, app_id: null, org_id: null } });
      if (!model) throw new Error(`catalog model ${name} not found`);
      if (!OPENAI_FORMAT.has(model.provider)) throw new Error(`${name} is served by ${model.provider}, which does not speak OpenAI's format`);
      return model;
    }),
  );
  if (new Set(models.map((model) => model.provider)).size > 1) throw new Error(`the bench's models must share one provider: ${names.join(', ')}`);
  await db.appModel.updateMany({ where: { app_id: appId, NOT: { model_id: { in: models.map((model) => model.id) } } }, data: { active: false } });
  for (const model of models) {
    await db.appModel.upsert({
      where: { app_id_model_id: { app_id: appId, model_id: model.id } },
      create: { app_id: appId, model_id: model.id, active: true },
      update: { active: true },
    });
  }
  return models.map((model) => ({ name: model.model, provider: model.provider }));
}

/**
 * `privacyLevel` 1 (the default) logs every request in full, as production does; 3 writes no log at all,
 * which shows what logging costs (it needs a GDPR model, e.g. mistral-small-2506).
 */
export async function createBenchEnvironment({
  privacyLevel = 1,
  model = BENCH_MODEL,
  routing = 'named',
}: { privacyLevel?: number; model?: string; routing?: BenchRouting } = {}): Promise<BenchEnvironment> {
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
    const tenant = await bootstrapTenant(db, { org: `bench-${suffix}`, space: 'bench', rateLimit: BENCH_RATE_LIMIT });
    const routed = routing === 'auto' ? [model, ...AUTO_ROUTED_MODELS.filter((name) => name !== model)] : [model];
    const activated = await activateOnly(db, tenant.app_id, routed);
    const active = activated[0];
    if (!active) throw new Error('no bench model activated');
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
      requestModel: routing === 'auto' ? undefined : active.name,
      activeModels: activated.map((entry) => entry.name),
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

/** Logs are batched a few ms after each reply: wait until the count stops moving. */
export async function settledLogs(env: BenchEnvironment): Promise<{ parents: number; children: number }> {
  let last = await env.countLogs();
  for (let i = 0; i < 20; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await env.countLogs();
    if (now.parents === last.parents && now.children === last.children) return now;
    last = now;
  }
  return last;
}
