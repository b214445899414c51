import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/config/project-root';
import { createDb } from '../src/store/db';
import { catalogSchema, type Catalog } from './catalog/schema';
import { catalogEntryToRow } from './catalog/to-row';

export const CATALOG_PATH = path.join(projectRoot(), 'prisma/catalog/models.json');

export function readCatalog(file = CATALOG_PATH): Catalog {
  const parsed = catalogSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid catalog ${file}: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

/**
 * Inserts or updates every catalog model (matched on provider and namespace among public models),
 * in one transaction. Running it twice changes nothing the second time.
 */
export async function seedCatalog(databaseUrl: string, catalog: Catalog = readCatalog()): Promise<{ created: number; updated: number }> {
  const db = createDb(databaseUrl, 2);
  try {
    return await db.$transaction(async (tx) => {
      let created = 0;
      let updated = 0;
      for (const entry of catalog.models) {
        const row = catalogEntryToRow(entry);
        const existing = await tx.model.findFirst({
          where: { provider: row.provider, namespace: row.namespace, app_id: null, org_id: null },
          select: { id: true },
        });
        if (existing) {
          await tx.model.update({ where: { id: existing.id }, data: row });
          updated += 1;
        } else {
          await tx.model.create({ data: row });
          created += 1;
        }
      }
      return { created, updated };
    });
  } finally {
    await db.$disconnect();
  }
}
