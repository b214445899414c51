import { readdir } from 'node:fs/promises';
import { Client } from 'pg';
import { DEFAULT_MIGRATIONS_DIR } from './migrations';

/** How long one attempt waits for PostgreSQL to accept the connection, in ms. */
const CONNECT_TIMEOUT_MS = 5000;
const MIGRATE = 'run `npm run db:migrate`';

interface PgFailure {
  code?: string;
  message?: string;
}

function whereOf(databaseUrl: string): { at: string; database: string } {
  const url = new URL(databaseUrl);
  return { at: `${url.hostname}:${url.port || '5432'}`, database: decodeURIComponent(url.pathname.slice(1)) };
}

/** What a failed connection means to the person starting the service: the cause, then the fix. */
function connectionProblem(err: PgFailure, databaseUrl: string): string {
  const { at, database } = whereOf(databaseUrl);
  switch (err.code) {
    case 'ECONNREFUSED':
      return `PostgreSQL at ${at} refused the connection: start PostgreSQL, or set DATABASE_URL`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `PostgreSQL's host in DATABASE_URL (${at}) was not found: set DATABASE_URL`;
    case '3D000':
      return `the database "${database}" at ${at} does not exist: ${MIGRATE} (it creates the database)`;
    case '28P01':
    case '28000':
      return `PostgreSQL at ${at} refused DATABASE_URL's user or password: set DATABASE_URL`;
    default:
      return `PostgreSQL at ${at} could not be reached (${err.message ?? err.code ?? 'unknown error'}): check DATABASE_URL`;
  }
}

async function migrationNames(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

async function migrationProblem(client: Client, database: string, dir: string): Promise<string | null> {
  let applied: Set<string>;
  try {
    const { rows } = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    applied = new Set(rows.map((r) => r.migration_name));
  } catch (err) {
    if ((err as PgFailure).code === '42P01') return `the database "${database}" is not migrated: ${MIGRATE}`;
    throw err;
  }
  const pending = (await migrationNames(dir)).filter((name) => !applied.has(name));
  if (pending.length === 0) return null;
  return `the database "${database}" lacks ${pending.length} migration${pending.length === 1 ? '' : 's'} (the newest: ${pending.at(-1)}): ${MIGRATE}`;
}

/**
 * One look at PostgreSQL as the service needs it: reachable, the database there, every committed
 * migration applied. Returns null when all is well, else one sentence naming the cause and the fix.
 */
export async function databaseProblem(databaseUrl: string, migrationsDir: string = DEFAULT_MIGRATIONS_DIR): Promise<string | null> {
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    return connectionProblem(err as PgFailure, databaseUrl);
  }
  try {
    return await migrationProblem(client, whereOf(databaseUrl).database, migrationsDir);
  } catch (err) {
    return connectionProblem(err as PgFailure, databaseUrl);
  } finally {
    await client.end().catch(() => undefined);
  }
}
