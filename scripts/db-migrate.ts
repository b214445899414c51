import { loadConfig } from '../src/config/load';
import { migrate } from '../src/store/migrations';

async function main(): Promise<void> {
  const { databaseUrl } = loadConfig();
  const applied = await migrate(databaseUrl);
  process.stdout.write(applied.length ? `Applied ${applied.join(', ')}\n` : 'Database is up to date.\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
