import IORedis from 'ioredis';
import { Client } from 'pg';

/** Calls so far per Redis command (`INFO commandstats`), for the whole Redis server. */
async function redisCommandCalls(redisUrl: string): Promise<Map<string, number>> {
  const redis = new IORedis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const info = await redis.info('commandstats');
    const calls = new Map<string, number>();
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1] ?? '', Number(match[2]));
    return calls;
  } finally {
    redis.disconnect();
  }
}

/** Transactions so far of one database (each statement outside a transaction is one). */
async function pgTransactions(databaseUrl: string, database: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // The statistics collector reports with a delay: ask for a fresh snapshot.
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ xacts: string }>('SELECT (xact_commit + xact_rollback)::text AS xacts FROM pg_stat_database WHERE datname = $1', [
      database,
    ]);
    return Number(rows[0]?.xacts ?? 0);
  } finally {
    await client.end();
  }
}

export interface RoundTripReading {
  redis: Map<string, number>;
  pgTransactions: number;
}

/** Redis commands by name and PostgreSQL transactions between two readings, per completion. */
export interface RoundTrips {
  redisPerCompletion: Record<string, number>;
  redisTotalPerCompletion: number;
  pgTransactionsPerCompletion: number;
}

/**
 * Counts the round trips the service makes to Redis and PostgreSQL while a cell runs. Redis's counts
 * cover the whole server (the benchmark's own reading commands included, a handful); PostgreSQL's cover
 * the benchmark database only. The reading itself adds one `info` and a few transactions.
 */
export class RoundTripMeter {
  constructor(private readonly target: { redisUrl: string; databaseUrl: string; databaseName: string }) {}

  async read(): Promise<RoundTripReading> {
    // pg_stat_database is updated when a backend goes idle, at most every PGSTAT_MIN_INTERVAL (1 s).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const [redis, pg] = await Promise.all([redisCommandCalls(this.target.redisUrl), pgTransactions(this.target.databaseUrl, this.target.databaseName)]);
    return { redis, pgTransactions: pg };
  }

  static since(before: RoundTripReading, after: RoundTripReading, completions: number): RoundTrips {
    const per = (n: number) => Number((n / Math.max(1, completions)).toFixed(2));
    const redisPerCompletion: Record<string, number> = {};
    let total = 0;
    for (const [name, calls] of after.redis) {
      const delta = calls - (before.redis.get(name) ?? 0);
      if (delta <= 0) continue;
      total += delta;
      redisPerCompletion[name] = per(delta);
    }
    const sorted = Object.fromEntries(Object.entries(redisPerCompletion).sort((a, b) => b[1] - a[1]));
    return { redisPerCompletion: sorted, redisTotalPerCompletion: per(total), pgTransactionsPerCompletion: per(after.pgTransactions - before.pgTransactions) };
  }
}
