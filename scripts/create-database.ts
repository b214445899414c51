import { Client, escapeIdentifier } from 'pg';

/** PostgreSQL's SQLSTATEs for "database does not exist" and "database already exists". */
const UNDEFINED_DATABASE = '3D000';
const DUPLICATE_DATABASE = '42P04';
/** Present on every PostgreSQL server; CREATE DATABASE has to be sent from some other database than the new one. */
const MAINTENANCE_DATABASE = 'postgres';

function sqlState(err: unknown): unknown {
  return err instanceof Error && 'code' in err ? err.code : undefined;
}

async function connectAndRun(databaseUrl: string, sql?: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    if (sql) await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Creates the database that DATABASE_URL names when the server says it does not exist, so a first
 * `npm run db:migrate` needs no `createdb`. Any other connection failure is left to the caller.
 * Returns the name of the database it created, or null when there was nothing to do.
 */
export async function createDatabaseIfMissing(databaseUrl: string): Promise<string | null> {
  try {
    await connectAndRun(databaseUrl);
    return null;
  } catch (err) {
    if (sqlState(err) !== UNDEFINED_DATABASE) throw err;
  }
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = `/${MAINTENANCE_DATABASE}`;
  try {
    await connectAndRun(url.toString(), `CREATE DATABASE ${escapeIdentifier(name)}`);
    return name;
  } catch (err) {
    // Another run created it in the meantime: it exists, which is all that was asked.
    if (sqlState(err) === DUPLICATE_DATABASE) return null;
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`Database "${name}" does not exist and could not be created (${why}). Create it (createdb) or point DATABASE_URL at one that exists.`, {
      cause: err,
    });
  }
}
