import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { costOf, ZERO_COSTS } from '../../src/accounting/costs';
import { createLogger } from '../../src/logging/logger';
import { LogBatcher } from '../../src/store/log-batcher';
import { logRowsFor, type LogRow, type RequestOutcome } from '../../src/pipeline/log-rows';
import { RunTrace } from '../../src/pipeline/run-trace';
import type { CompletionResult } from '../../src/domain/completion';
import { toRoutableModel } from '../../src/pipeline/space-context';
import { createDb } from '../../src/store/db';
import { cpuDelta, sharedServiceCpu } from './cpu';
import { BENCH_MODEL, createBenchEnvironment } from './environment';

/**
 * `tsx tools/bench/log-writes.ts`: what one request's log costs the worker (Node CPU) and PostgreSQL, written
 * as the worker writes it (LogBatcher: one statement per batch on the pg pool under Prisma) and as one statement
 * (`INSERT ... SELECT FROM json_populate_recordset`) sent through Prisma's raw query or a plain `pg` pool,
 * at several batch sizes.
 */
const REQUESTS = 4000;
const BATCHES = [1, 4, 16, 64, 200];
const say = (text: string) => process.stdout.write(`${text}\n`);

type Write = (batch: { parent: LogRow; children: LogRow[] }[]) => Promise<void>;

function outcomeFor(env: { orgId: string; appId: string }, model: ReturnType<typeof toRoutableModel>): RequestOutcome {
  const requestId = randomUUID();
  const usage = { prompt_tokens: 7, completion_tokens: 6, total_tokens: 13 };
  const costs = costOf(model, usage);
  const scores = { best_models: [model.model], candidates: [{ model: model.model, provider: model.provider, score: 0.8, quality: 0.8, offline_quality: 0.8, cost: 0.9, latency: 0.7 }], router: { version: 'bench', kind: 'chat', smart_learn: false, explored: false } };
  const message = { role: 'assistant' as const, content: 'Echo: Say hello to the benchmark.' };
  const result: CompletionResult = {
    requestId,
    appId: env.appId,
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: 'stop' }],
    usage,
    costs,
    savings: ZERO_COSTS,
    latencyMs: 1.2,
    retries: 0,
    statusCode: 200,
    warnings: [],
    labels: {},
    scores,
    score: 0.8,
    searchResults: [],
    artifacts: [],
    plugins: [],
  };
  const trace = new RunTrace();
  trace.addAttempts([{ kind: 'model', model, retry: 0, startedAt: Date.now(), latencyMs: 1.2, statusCode: 200, usage }]);
  trace.addAnswer(model, { usage, latencyMs: 1.2 });
  const job = { requestId, orgId: env.orgId, appId: env.appId, idpId: 'bench', request: { model: BENCH_MODEL, messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], stream: false }, headerFlags: {}, replyTo: 'x', deadline: Date.now() + 60_000, receivedAt: Date.now() };
  return { job: job as unknown as RequestOutcome['job'], privacyLevel: 1, isTest: false, trace, ended: { result }, responseText: 'Echo: Say hello to the benchmark.' };
}

/**
 * One statement for parents and children (a data-modifying CTE; PostgreSQL checks parent_id at its end),
 * the rows sent as two JSON parameters that PostgreSQL itself turns into records.
 */
function singleStatement(run: (sql: string, parents: string, children: string) => Promise<unknown>): Write {
  const columnsOf = (rows: object[]) => [...new Set(rows.flatMap((row) => Object.keys(row)))].map((c) => `"${c}"`).join(', ');
  const json = (rows: LogRow[]) => JSON.stringify(rows.map((row) => ({ ...row, timestamp: Number(row.timestamp) })));
  return async (batch) => {
    const parents = batch.map((w) => w.parent);
    const children = batch.flatMap((w) => w.children);
    const [p, c] = [columnsOf(parents), columnsOf(children)];
    const sql = `WITH parents AS (INSERT INTO logs (${p}) SELECT ${p} FROM json_populate_recordset(NULL::logs, $1::json))
       INSERT INTO logs (${c}) SELECT ${c} FROM json_populate_recordset(NULL::logs, $2::json)`;
    await run(sql, json(parents), json(children));
  };
}

async function measure(write: Write, rows: { parent: LogRow; children: LogRow[] }[], { batchSize, database }: { batchSize: number; database: string }) {
  const cpuBefore = process.cpuUsage();
  const pgBefore = sharedServiceCpu(database).postgres;
  const started = performance.now();
  for (let i = 0; i < rows.length; i += batchSize) await write(rows.slice(i, i + batchSize));
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const pgMs = cpuDelta(pgBefore, sharedServiceCpu(database).postgres);
  return { node_ms_per_request: (cpu.user + cpu.system) / 1000 / rows.length, postgres_ms_per_request: pgMs / rows.length, wall_ms_per_request: wallMs / rows.length };
}

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
