import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from '../generated/prisma/client';

export type Db = PrismaClient;
/** The client handed to a `$transaction` callback. */
export type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/**
 * Writers of one Space lock its row (`FOR UPDATE`) and so take turns, each holding a pooled connection
 * while it waits: a burst of changes to one Space can occupy the whole pool. Prisma's defaults (2 s to
 * get a connection, 5 s per transaction) turn such a queue into 503s; these let it drain instead, and
 * still end a transaction that is truly stuck.
 */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 15_000 } as const;

const pools = new WeakMap<Db, Pool>();

/** A Prisma client over a pg pool of `maxConnections`; `$disconnect` ends the pool. */
export function createDb(databaseUrl: string, maxConnections = 10): Db {
  const pool = new Pool({ connectionString: databaseUrl, max: maxConnections });
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }), transactionOptions: TRANSACTION_OPTIONS });
  pools.set(db, pool);
  return db;
}

/**
 * The pg pool under a client made by `createDb`, for the statements every completion runs (its log's
 * insert, space-search's query). A raw statement through Prisma costs the process more CPU than the
 * same statement on the pool: 0.71 against 0.25 ms per request for a log written alone
 * (`tsx tools/bench/log-writes.ts`). Everything else goes through Prisma.
 */
export function sqlPoolOf(db: Db): Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error('this Prisma client was not made by createDb: it has no pool of its own');
  return pool;
}

/**
 * Runs `work` in one transaction. Services decide what one unit of work holds; the store functions
 * it calls take `tx`, and only store/ talks to Prisma.
 */
export function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(work);
}

/** One round trip to PostgreSQL (readiness). */
export async function pingDb(db: Db): Promise<void> {
  await db.$queryRaw`SELECT 1`;
}
