import { PrismaPg } from '@prisma/adapter-pg';
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

export function createDb(databaseUrl: string, maxConnections = 10): Db {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: maxConnections }), transactionOptions: TRANSACTION_OPTIONS });
}
