import { loadEnvFile } from '../src/config/env-file';
import { loadConfig } from '../src/config/load';
import { seedCatalog } from './seed-catalog';

loadEnvFile();
seedCatalog(loadConfig().databaseUrl).then(
  ({ created, updated, unchanged }) => process.stdout.write(`Catalog seeded: ${created} created, ${updated} updated, ${unchanged} unchanged.\n`),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
