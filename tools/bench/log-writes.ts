import { measure, runMain, singleStatement, withLogBench } from './log-write-measure';

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
  await withLogBench(async ({ env, db, pool, make, batched }) => {
    const plain = singleStatement((sql, parents, children) => pool.query(sql, [parents, children]));
    const raw = singleStatement((sql, parents, children) => db.$executeRawUnsafe(sql, parents, children));
    const database = env.databaseName;
    for (const warm of [batched, plain, raw]) await measure(warm, make(400), { batchSize: 16, database });
    say('| batch (requests) | writer | Node CPU ms/request | PostgreSQL CPU ms/request | wall ms/request |\n| --- | --- | --- | --- | --- |');
    for (const size of BATCHES) {
      for (const [name, write] of [
        ['LogBatcher (one statement per batch, pg pool under Prisma)', batched],
        ['one statement, Prisma $executeRawUnsafe', raw],
        ['one statement, pg Pool', plain],
      ] as const) {
        const r = await measure(write, make(REQUESTS), { batchSize: size, database });
        say(`| ${size} | ${name} | ${r.node_ms_per_request.toFixed(3)} | ${r.postgres_ms_per_request.toFixed(3)} | ${r.wall_ms_per_request.toFixed(3)} |`);
      }
    }
    const counted = await env.countLogs();
    // The statement path must store what Prisma stores: JSON columns as objects, not strings.
    const [shapes] = await db.$queryRawUnsafe<{ bad: bigint }[]>(
      `SELECT count(*) AS bad FROM logs WHERE jsonb_typeof(response) <> 'object' OR jsonb_typeof(payload) <> 'object' OR added_on IS NULL`,
    );
    say(`\nrows written: ${counted.parents} parents, ${counted.children} children; rows with a malformed JSON column or no added_on: ${shapes?.bad}`);
  });
}

runMain(main);
