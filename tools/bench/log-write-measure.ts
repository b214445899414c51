import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { costOf, ZERO_COSTS } from '../../src/accounting/costs';
import type { CompletionResult } from '../../src/domain/completion';
import { createLogger } from '../../src/logging/logger';
import { logRowsFor, type LogRow, type RequestOutcome } from '../../src/pipeline/log-rows';
import { RunTrace } from '../../src/pipeline/run-trace';
import { toRoutableModel } from '../../src/store/space-context';
import { createDb, type Db } from '../../src/store/db';
import { LogBatcher } from '../../src/store/log-batcher';
import { cpuDelta, sharedServiceCpu } from './cpu';
import { BENCH_MODEL, createBenchEnvironment, type BenchEnvironment } from './environment';

/** What the log-writing benchmarks share: a request's outcome as the worker logs it, the ways to write it, the measurement. */
export type Write = (batch: { parent: LogRow; children: LogRow[] }[]) => Promise<void>;

export function outcomeFor(env: { orgId: string; appId: string }, model: ReturnType<typeof toRoutableModel>): RequestOutcome {
  const requestId = randomUUID();
  const usage = { prompt_tokens: 7, completion_tokens: 6, total_tokens: 13 };
  const costs = costOf(model, usage);
  const scores = {
    best_models: [model.model],
    candidates: [{ model: model.model, provider: model.provider, score: 0.8, quality: 0.8, offline_quality: 0.8, cost: 0.9, latency: 0.7 }],
    router: { version: 'bench', kind: 'chat', smart_learn: false, explored: false },
  };
  const message = { role: 'assistant' as const, content: 'Echo: Say hello to the benchmark.' };
  const result: CompletionResult = {
    requestId,
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: 'stop' }],
    usage,
    statusCode: 200,
    report: {
      appId: env.appId,
      costs,
      savings: ZERO_COSTS,
      latencyMs: 1.2,
      retries: 0,
      warnings: [],
      labels: {},
      scores,
      score: 0.8,
      searchResults: [],
      artifacts: [],
      plugins: [],
    },
  };
  const trace = new RunTrace();
  trace.addAttempts([{ kind: 'model', model, retry: 0, startedAt: Date.now(), latencyMs: 1.2, statusCode: 200, usage }]);
  trace.addAnswer(model, { usage, latencyMs: 1.2 });
  const messages = [{ role: 'user' as const, content: 'Say hello to the benchmark.' }];
  const request: RequestOutcome['job']['request'] = {
    chat: { messages },
    model: BENCH_MODEL,
    weights: { cost: 0.5, latency: 0.5, quality: 0.5 },
    policies: { max_cost: null, max_switch_model_retries: 2, max_same_model_retries: 1, optimize_internal_requests: 0, prompt_id: null },
    flags: {},
    labels: {},
    forwardedHeaders: {},
    plugins: [],
    images: [],
    files: [],
  };
  const job: RequestOutcome['job'] = {
    requestId,
    orgId: env.orgId,
    appId: env.appId,
    spaceStamp: '',
    idpId: 'bench',
    request,
    privacyLevel: 1,
    payload: { model: BENCH_MODEL, stream: false },
    replyTo: 'x',
    deadline: Date.now() + 60_000,
    receivedAt: Date.now(),
  };
  return { job, isTest: false, trace, ended: { result }, responseText: 'Echo: Say hello to the benchmark.' };
}

/**
 * One statement for parents and children (a data-modifying CTE; PostgreSQL checks parent_id at its end),
 * the rows sent as two JSON parameters that PostgreSQL itself turns into records.
 */
export function singleStatement(run: (sql: string, parents: string, children: string) => Promise<unknown>): Write {
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

export async function measure(write: Write, rows: { parent: LogRow; children: LogRow[] }[], { batchSize, database }: { batchSize: number; database: string }) {
  const cpuBefore = process.cpuUsage();
  const pgBefore = sharedServiceCpu(database).postgres;
  const started = performance.now();
  for (let i = 0; i < rows.length; i += batchSize) await write(rows.slice(i, i + batchSize));
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const pgMs = cpuDelta(pgBefore, sharedServiceCpu(database).postgres);
  return {
    node_ms_per_request: (cpu.user + cpu.system) / 1000 / rows.length,
    postgres_ms_per_request: pgMs / rows.length,
    wall_ms_per_request: wallMs / rows.length,
  };
}

export interface LogBench {
  env: BenchEnvironment;
  db: Db;
  pool: Pool;
  /** `count` requests' log rows, each a parent and its model call. */
  make(count: number): { parent: LogRow; children: LogRow[] }[];
  /** The worker's own path: LogBatcher, the writes of a batch sharing one statement. */
  batcher: LogBatcher;
  batched: Write;
}

/** A throwaway database with the bench's Space, its connections and rows to write, for `run`; all removed afterwards. */
export async function withLogBench(run: (bench: LogBench) => Promise<void>): Promise<void> {
  const env = await createBenchEnvironment();
  const db = createDb(env.databaseUrl);
  const pool = new Pool({ connectionString: env.databaseUrl, max: 4 });
  try {
    const row = await db.model.findFirst({ where: { model: BENCH_MODEL, app_id: null, org_id: null } });
    if (!row) throw new Error('no bench model');
    const model = toRoutableModel(row);
    const make = (count: number) => Array.from({ length: count }, () => logRowsFor(outcomeFor(env, model))).filter((rows) => rows !== null);
    const batcher = new LogBatcher(db, createLogger('silent'), { maxBatch: 100_000 });
    const batched: Write = (batch) => Promise.all(batch.map((rows) => batcher.write(rows))).then(() => undefined);
    await run({ env, db, pool, make, batcher, batched });
  } finally {
    await pool.end();
    await db.$disconnect();
    await env.destroy();
  }
}

/** Runs a benchmark's main, reporting a failure on stderr with a non-zero exit. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  });
}
