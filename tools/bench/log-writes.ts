import { Pool } from 'pg';
import { createLogger } from '../../src/logging/logger';
import { LogBatcher } from '../../src/store/log-batcher';
import { logRowsFor } from '../../src/pipeline/log-rows';
import { toRoutableModel } from '../../src/pipeline/space-context';
import { createDb } from '../../src/store/db';
import { BENCH_MODEL, createBenchEnvironment } from './environment';
import { measure, outcomeFor, singleStatement, type Write } from './log-write-measure';

/**
 * `tsx tools/bench/log-writes.ts`: what one request's log costs the worker (Node CPU) and PostgreSQL, written
 * as the worker writes it (LogBatcher: one statement per batch on the pg pool under Prisma) and as one statement
 * (`INSERT ... SELECT FROM json_populate_recordset`) sent through Prisma's raw query or a plain `pg` pool,
 * at several batch sizes.
 */
const REQUESTS = 4000;
const BATCHES = [1, 4, 16, 64, 200];
const say = (text: string) => process.stdout.write(`${text}\n`);

async function main(): Promise<void> {
  const env = await createBenchEnvironment();
  const db = createDb(env.databaseUrl);
  const pool = new Pool({ connectionString: env.databaseUrl, max: 4 });
  try {
    const row = await db.model.findFirst({ where: { model: BENCH_MODEL, app_id: null, org_id: null } });
    if (!row) throw new Error('no bench model');
    const model = toRoutableModel(row);
    const make = () => Array.from({ length: REQUESTS }, () => logRowsFor(outcomeFor(env, model))).filter((r) => r !== null);
    const batcher = new LogBatcher(db, createLogger('silent'), { maxBatch: 100_000 });
    // The batcher's own path: the writes of a batch share one statement.
    const batched: Write = (batch) => Promise.all(batch.map((rows) => batcher.write(rows))).then(() => undefined);
    const plain = singleStatement((sql, parents, children) => pool.query(sql, [parents, children]));
    const raw = singleStatement((sql, parents, children) => db.$executeRawUnsafe(sql, parents, children));
    const database = env.databaseName;
    for (const warm of [batched, plain, raw]) await measure(warm, make().slice(0, 400), { batchSize: 16, database });
    say('| batch (requests) | writer | Node CPU ms/request | PostgreSQL CPU ms/request | wall ms/request |\n| --- | --- | --- | --- | --- |');
    for (const size of BATCHES) {
      for (const [name, write] of [['LogBatcher (one statement per batch, pg pool under Prisma)', batched], ['one statement, Prisma $executeRawUnsafe', raw], ['one statement, pg Pool', plain]] as const) {
        const r = await measure(write, make(), { batchSize: size, database });
        say(`| ${size} | ${name} | ${r.node_ms_per_request.toFixed(3)} | ${r.postgres_ms_per_request.toFixed(3)} | ${r.wall_ms_per_request.toFixed(3)} |`);
      }
    }
    const counted = await env.countLogs();
    // The statement path must store what Prisma stores: JSON columns as objects, not strings.
    const [shapes] = await db.$queryRawUnsafe<{ bad: bigint }[]>(
      `SELECT count(*) AS bad FROM logs WHERE jsonb_typeof(response) <> 'object' OR jsonb_typeof(payload) <> 'object' OR added_on IS NULL`,
    );
    say(`\nrows written: ${counted.parents} parents, ${counted.children} children; rows with a malformed JSON column or no added_on: ${shapes?.bad}`);
  } finally {
    await pool.end();
    await db.$disconnect();
    await env.destroy();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
