import { catalogEmbeddingEntryToRow, catalogEntryToRow } from '../../prisma/catalog/to-row';
import type { Catalog } from '../../src/schemas/model-catalog';
import { readCatalog, seedCatalog } from '../../prisma/seed-catalog';
import { createAppWithDefaults } from '../../src/store/app-creation';
import { createDb, type Db } from '../../src/store/db';
import { migrate } from '../../src/store/migrations';
import { createDatabase, databaseUrlFor, dropDatabase, uniqueSuffix } from '../helpers/test-database';

/** Its own database: the run's shared one is already seeded, and these tests count every write. */
const databaseName = `switchyard_catalog_${uniqueSuffix()}`;
const databaseUrl = databaseUrlFor(databaseName);
const catalog = readCatalog();
/** Rows the catalog writes: chat and embedding models. */
const modelCount = catalog.models.length + catalog.embedding_models.length;
let db: Db;

beforeAll(async () => {
  await createDatabase(databaseName);
  await migrate(databaseUrl);
  db = createDb(databaseUrl, 2);
});

afterAll(async () => {
  await db?.$disconnect();
  await dropDatabase(databaseName);
});

function publicRows() {
  return db.model.findMany({ where: { app_id: null, org_id: null }, orderBy: { id: 'asc' } });
}

function withPrice(source: Catalog, model: string, promptPer1m: number): Catalog {
  return {
    ...source,
    models: source.models.map((entry) => (entry.model === model ? { ...entry, prices: { ...entry.prices, prompt_per_1m: promptPer1m } } : entry)),
  };
}

describe('seedCatalog', () => {
  it('creates every catalog model in an empty database', async () => {
    expect(await seedCatalog(databaseUrl, catalog)).toEqual({ created: modelCount, updated: 0, unchanged: 0 });
    const rows = await publicRows();
    expect(rows).toHaveLength(modelCount);
    for (const entry of catalog.models) {
      const row = rows.find((r) => r.provider === entry.provider && r.namespace === entry.namespace);
      expect(row).toMatchObject(catalogEntryToRow(entry));
    }
    for (const entry of catalog.embedding_models) {
      const row = rows.find((r) => r.provider === entry.provider && r.namespace === entry.namespace);
      expect(row).toMatchObject({ ...catalogEmbeddingEntryToRow(entry), is_chat: false });
    }
  });

  it('changes nothing on a second run, not even modified_on', async () => {
    const before = await publicRows();
    expect(await seedCatalog(databaseUrl, catalog)).toEqual({ created: 0, updated: 0, unchanged: modelCount });
    expect(await publicRows()).toEqual(before);
  });

  it('updates exactly the row whose price changed', async () => {
    const before = await publicRows();
    const changed = withPrice(catalog, 'gpt-4o-mini', 0.2);
    expect(await seedCatalog(databaseUrl, changed)).toEqual({ created: 0, updated: 1, unchanged: modelCount - 1 });

    const after = await publicRows();
    const differing = after.filter((row, index) => JSON.stringify(row) !== JSON.stringify(before[index]));
    expect(differing.map((row) => row.model)).toEqual(['gpt-4o-mini']);
    const [updated] = differing;
    expect(updated?.prompt_token_cost).toBeCloseTo(0.2e-6, 15);
    expect(updated?.modified_on.getTime()).toBeGreaterThan(before.find((row) => row.id === updated?.id)?.modified_on.getTime() ?? Infinity);

    expect(await seedCatalog(databaseUrl, catalog)).toEqual({ created: 0, updated: 1, unchanged: modelCount - 1 });
  });

  it("leaves an organization's own model with the same upstream id alone", async () => {
    const org = await db.organization.create({ data: { name: 'catalog-seed-custom' } });
    const custom = await db.model.create({
      data: { model: 'my-gpt-4o-mini', provider: 'openai', namespace: 'gpt-4o-mini', org_id: org.id, is_public: false, prompt_token_cost: 1 },
    });
    expect(await seedCatalog(databaseUrl, withPrice(catalog, 'gpt-4o-mini', 0.3))).toMatchObject({ created: 0, updated: 1 });
    expect(await db.model.findUniqueOrThrow({ where: { id: custom.id } })).toEqual(custom);
    await seedCatalog(databaseUrl, catalog);
  });

  it('gives a new Space exactly the default-active catalog models', async () => {
    const org = await db.organization.create({ data: { name: 'catalog-seed-defaults' } });
    const app = await db.$transaction((tx) => createAppWithDefaults(tx, { orgId: org.id, idpId: 'catalog-seed-test', name: 'main' }));
    const links = await db.appModel.findMany({ where: { app_id: app.id }, include: { model: true } });

    const expected = [...catalog.models, ...catalog.embedding_models].filter((entry) => entry.default_active).map((entry) => entry.model);
    expect(links.map((link) => link.model.model).sort()).toEqual(expected.sort());
    expect(links.every((link) => link.active)).toBe(true);
  });
});
