import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** Where the test run's throwaway database and Redis prefix live; read from the environment the CI gives. */
export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

export function databaseUrlFor(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export function createDatabase(name: string): Promise<void> {
  return withAdmin(async (client) => {
    await client.query(`CREATE DATABASE "${name}"`);
  });
}

export function dropDatabase(name: string): Promise<void> {
  return withAdmin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}
