import { measure, runMain, singleStatement, withLogBench, type Write } from './log-write-measure';

/**
 * `tsx tools/bench/log-schema-costs.ts`: where PostgreSQL's CPU for a request's log goes. Batches of 16
 * requests (a parent and a child row each) written one after another into a throwaway database, three runs
 * per line: as migrated through the LogBatcher; one statement through a pg pool with the rows as `json`
 * and as `jsonb`; then with partial indexes for `conversation_id` and `parent_id`, parent rows only,
 * and with the table's foreign keys and secondary indexes dropped one kind after the other.
 */
const say = (text: string) => process.stdout.write(`${text}\n`);

async function main(): Promise<void> {
  await withLogBench(async ({ env, pool, make, batcher, batched }) => {
    const parentsOnly: Write = (batch) => Promise.all(batch.map((rows) => batcher.write({ parent: rows.parent, children: [] }))).then(() => undefined);
    const database = env.databaseName;
    await measure(batched, make(400), { batchSize: 16, database });
    const run = async (label: string, write: Write) => {
      const results = [];
      for (let i = 0; i < 3; i++) results.push(await measure(write, make(2000), { batchSize: 16, database }));
      say(
        `| ${label} | ${results.map((r) => r.postgres_ms_per_request.toFixed(3)).join(', ')} | ${results.map((r) => r.node_ms_per_request.toFixed(3)).join(', ')} |`,
      );
    };
    say('| schema | PostgreSQL CPU ms/request (3 runs) | Node ms/request |\n| --- | --- | --- |');
    await run('as migrated', batched);
    const viaJson = singleStatement((sql, parents, children) => pool.query(sql, [parents, children]));
    const viaJsonb = singleStatement((sql, parents, children) =>
      pool.query(sql.replace(/json_populate_recordset\(NULL::logs, \$(\d)::json\)/g, 'jsonb_populate_recordset(NULL::logs, $$$1::jsonb)'), [parents, children]),
    );
    await run('as migrated, json_populate_recordset (pg pool)', viaJson);
    await run('as migrated, jsonb_populate_recordset (pg pool)', viaJsonb);
    await run('as migrated, json_populate_recordset (pg pool) again', viaJson);
    await pool.query('DROP INDEX "logs_conversation_id_added_on_idx"; DROP INDEX "logs_parent_id_idx"');
    await pool.query('CREATE INDEX "logs_conversation_id_added_on_idx" ON logs (conversation_id, added_on) WHERE conversation_id IS NOT NULL');
    await pool.query('CREATE INDEX "logs_parent_id_idx" ON logs (parent_id) WHERE parent_id IS NOT NULL');
    await run('partial conversation and parent indexes, jsonb (pg pool)', viaJsonb);
    await run('partial conversation and parent indexes, json (pg pool)', viaJson);
    await run('parent rows only', parentsOnly);
    const fks = await pool.query<{ conname: string }>(`SELECT conname FROM pg_constraint WHERE conrelid = 'logs'::regclass AND contype = 'f'`);
    for (const { conname } of fks.rows) await pool.query(`ALTER TABLE logs DROP CONSTRAINT "${conname}"`);
    await run(`without its ${fks.rows.length} foreign keys`, batched);
    const indexes = await pool.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'logs' AND indexname NOT LIKE '%pkey'`);
    for (const { indexname } of indexes.rows) await pool.query(`DROP INDEX "${indexname}"`);
    await run(`and without its ${indexes.rows.length} secondary indexes`, batched);
    await run('and parent rows only', parentsOnly);
  });
}

runMain(main);
