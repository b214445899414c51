import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/config/project-root';
import type { Model } from '../src/generated/prisma/client';
import { createDb, type Tx } from '../src/store/db';
import { catalogSchema, type Catalog } from '../src/schemas/model-catalog';
import { catalogEmbeddingEntryToRow, catalogEntryToRow, changedColumns, type CatalogRow } from './catalog/to-row';

export const CATALOG_PATH = path.join(projectRoot(), 'prisma/catalog/models.json');

export function readCatalog(file = CATALOG_PATH): Catalog {
  const parsed = catalogSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid catalog ${file}: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

export interface SeedResult {
  created: number;
  updated: number;
  unchanged: number;
}

const targetKey = (provider: string, namespace: string): string => `${provider}\u0000${namespace}`;

/** Writes one catalog row: creates it, updates it when a column differs, or leaves it alone. */
async function upsertRow(tx: Tx, row: CatalogRow, existing: Model | undefined) {
  if (!existing) {
    await tx.model.create({ data: row });
    return 'created' as const;
  }
  // `modified_on` is @updatedAt: any update bumps it, so an unchanged row must not be written at all.
  if (changedColumns(existing, row).length === 0) return 'unchanged' as const;
  await tx.model.update({ where: { id: existing.id }, data: row });
  return 'updated' as const;
}

/**
 * Inserts or updates every catalog model (matched on provider and namespace among public models),
 * in one transaction. Rows whose columns already match are not written, so running it twice changes
 * nothing the second time (not even `modified_on`). Models dropped from the file are left in place:
 * logs and Spaces still refer to them; retire a model with `deprecated_on` / `until` instead.
 */
export async function seedCatalog(databaseUrl: string, catalog: Catalog = readCatalog()): Promise<SeedResult> {
  const db = createDb(databaseUrl, 2);
  try {
    return await db.$transaction(async (tx) => {
      const stored = await tx.model.findMany({ where: { app_id: null, org_id: null } });
      const existing = new Map(stored.map((row) => [targetKey(row.provider, row.namespace), row]));
      const result: SeedResult = { created: 0, updated: 0, unchanged: 0 };
      const rows = [...catalog.models.map(catalogEntryToRow), ...catalog.embedding_models.map(catalogEmbeddingEntryToRow)];
      for (const row of rows) {
        result[await upsertRow(tx, row, existing.get(targetKey(row.provider, row.namespace)))] += 1;
      }
      return result;
    });
  } finally {
    await db.$disconnect();
  }
}
