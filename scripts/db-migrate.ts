import { loadEnvFile } from '../src/config/env-file';
import { loadConfig } from '../src/config/load';
import { migrate } from '../src/store/migrations';
import { createDatabaseIfMissing } from './create-database';

async function main(): Promise<void> {
  loadEnvFile();
  const { databaseUrl } = loadConfig();
  const created = await createDatabaseIfMissing(databaseUrl);
  if (created) process.stdout.write(`Created database ${created}.\n`);
  const applied = await migrate(databaseUrl);
  process.stdout.write(applied.length ? `Applied ${applied.join(', ')}\n` : 'Database is up to date.\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
