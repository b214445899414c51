import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Cleanups } from './cleanups';
import { CpuMeter } from './cpu';
import { BENCH_MODEL, createBenchEnvironment, type BenchEnvironment } from './environment';
import { runLoad, type LoadResult, type LoadTarget } from './load';
import { buildService, freePort, startService, startUpstream, tailOf, waitFor200, type Managed, type Runner } from './processes';
import { machineInfo } from './reliability/machine';

/**
 * `npm run bench:batch-fairness`: interactive completions of a Space while one of its batches runs
 * (issue 11 §3). With the model answering in `--latency` ms, it measures the interactive p50 with the
 * service idle, then submits a `--lines`-line batch through `POST /v1/files` and `POST /v1/batches`
 * (OpenAI's wire format) and measures the interactive p50 again while the batch is in progress, in the
 * same Space (the harder case: the same Space's batch and its own interactive traffic). Goal: the busy
 * p50 within 1.5× of the idle one. It also reports the batch's lines per second during the window and,
 * with --finish, how long the whole batch took. Options: --lines, --clients, --duration, --latency (ms),
 * --finish, --runner build|prebuilt|tsx, --out <file>.
 */
const { values: args } = parseArgs({
  options: {
    lines: { type: 'string', default: '10000' },
    clients: { type: 'string', default: '8' },
    duration: { type: 'string', default: '15' },
    latency: { type: 'string', default: '200' },
    finish: { type: 'boolean', default: false },
    runner: { type: 'string', default: 'build' },
    out: { type: 'string', default: path.join(__dirname, 'batch-fairness-results.json') },
  },
});

const say = (text: string) => process.stdout.write(`${text}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups = new Cleanups(say);

interface BatchState {
  id: string;
  status: string;
  request_counts: { total: number; completed: number; failed: number };
}

/** The batch's input: one chat completion per line, each a different question so no cache could answer it. */
function batchInput(lines: number): string {
  const rows: string[] = [];
  for (let i = 0; i < lines; i += 1) {
    const body = { model: BENCH_MODEL, messages: [{ role: 'user', content: `Batch question ${i}: name a prime number larger than ${i}.` }] };
    rows.push(JSON.stringify({ custom_id: `line-${i}`, method: 'POST', url: '/v1/chat/completions', body }));
  }
  return `${rows.join('\n')}\n`;
}

interface ApiClient {
  apiUrl: string;
  apiKey: string;
}

async function api<T>({ apiUrl, apiKey }: ApiClient, route: string, init: { method?: string; body?: FormData; json?: object } = {}): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (init.json) headers['content-type'] = 'application/json';
  const res = await fetch(`${apiUrl}${route}`, { method: init.method ?? 'GET', headers, body: init.json ? JSON.stringify(init.json) : init.body });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${route} answered ${res.status}: ${text.slice(0, 400)}`);
  return JSON.parse(text) as T;
}

async function submitBatch(client: ApiClient, lines: number): Promise<BatchState> {
  const form = new FormData();
  form.append('purpose', 'batch');
  form.append('file', new Blob([batchInput(lines)], { type: 'application/jsonl' }), 'fairness.jsonl');
  const file = await api<{ id: string }>(client, '/v1/files', { method: 'POST', body: form });
  return api<BatchState>(client, '/v1/batches', {
    method: 'POST',
    json: { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
  });
}

/** Polls the batch until `until` says it is there, or fails after `timeoutMs`. */
async function waitForBatch(
  client: ApiClient,
  id: string,
  { until, timeoutMs }: { until: (batch: BatchState) => boolean; timeoutMs: number },
): Promise<BatchState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = await api<BatchState>(client, `/v1/batches/${id}`);
    if (until(batch)) return batch;
    if (['failed', 'expired', 'cancelled'].includes(batch.status)) throw new Error(`batch ended ${batch.status}: ${JSON.stringify(batch).slice(0, 400)}`);
    if (Date.now() > deadline) throw new Error(`batch still ${batch.status} after ${timeoutMs} ms (${JSON.stringify(batch.request_counts)})`);
    await sleep(250);
  }
}

function interactive(apiUrl: string, apiKey: string): LoadTarget {
  return {
    url: `${apiUrl}/v1/chat/completions`,
    headers: { authorization: `Bearer ${apiKey}` },
    body: { model: BENCH_MODEL, messages: [{ role: 'user', content: 'An interactive question: what is two plus two?' }] },
    stream: false,
  };
}

async function startDeployment(env: BenchEnvironment, upstreamUrl: string, scratch: string): Promise<{ processes: Managed[]; apiUrl: string }> {
  const runner: Runner = args.runner === 'tsx' || args.runner === 'prebuilt' ? args.runner : 'build';
  const shared = {
    NODE_ENV: 'production',
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    REDIS_PREFIX: env.redisPrefix,
    OPENAI_API_KEY: 'bench',
    OPENAI_BASE_URL: `${upstreamUrl}/openai/v1`,
    LOG_LEVEL: 'warn',
    SHUTDOWN_GRACE_MS: '5000',
    FILE_STORAGE_DIR: path.join(scratch, 'files'),
  };
  const worker = startService({ name: 'worker', runner, logFile: path.join(scratch, 'worker.log'), env: { ...shared, SWITCHYARD_ROLE: 'workers' } });
  const port = await freePort();
  const apiProcess = startService({
    name: 'api',
    runner,
    logFile: path.join(scratch, 'api.log'),
    env: { ...shared, SWITCHYARD_ROLE: 'api', PORT: String(port), HOST: '127.0.0.1' },
  });
  cleanups.push({ name: 'service', run: () => Promise.all([apiProcess.stop(), worker.stop()]) });
  const apiUrl = `http://127.0.0.1:${port}`;
  try {
    await waitFor200(`${apiUrl}/readyz`, 30_000, () => apiProcess.child.exitCode === null && worker.child.exitCode === null);
  } catch (err) {
    for (const p of [apiProcess, worker]) say(`--- ${p.name}.log ---\n${tailOf(p.logFile)}`);
    throw err;
  }
  return { processes: [apiProcess, worker], apiUrl };
}

const describe = (label: string, r: LoadResult) =>
  `${label}: ${r.requests} completions, ${r.rps.toFixed(1)}/s, p50 ${r.latency.p50.toFixed(1)} ms, p99 ${r.latency.p99.toFixed(1)} ms, ${r.errors} failed`;

async function main(): Promise<void> {
  const machine = machineInfo();
  say(`Switchyard batch fairness on ${machine.cpu_model} × ${machine.cores}, Node ${machine.node}, load average ${machine.load_average_at_start.join(' ')}`);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-fairness-'));
  cleanups.push({ name: 'scratch folder', run: async () => rmSync(scratch, { recursive: true, force: true }) });
  if (args.runner === 'build') say(`compiled the service with tsc in ${(buildService().ms / 1000).toFixed(1)} s`);
  const env = await createBenchEnvironment();
  cleanups.push({ name: 'database and Redis keys', run: () => env.destroy() });
  const latencyMs = Number(args.latency);
  const upstream = await startUpstream('simulator', { latencyMs });
  cleanups.push({ name: 'upstream', run: () => upstream.stop() });
  const { processes, apiUrl } = await startDeployment(env, upstream.url, scratch);
  const target = interactive(apiUrl, env.apiKey);
  const load = { concurrency: Number(args.clients), durationMs: Number(args.duration) * 1000, maxRequests: 1_000_000, timeoutMs: 30_000 };
  await runLoad(target, { ...load, durationMs: 3000 });
  const meter = new CpuMeter(() => Object.fromEntries(processes.map((p) => [p.name, p.child.pid])), env.databaseName);

  const idle = await runLoad(target, load);
  say(describe('  idle', idle));

  const lines = Number(args.lines);
  const submittedAt = Date.now();
  const client = { apiUrl, apiKey: env.apiKey };
  const batch = await submitBatch(client, lines);
  const running = await waitForBatch(client, batch.id, { until: (b) => b.status === 'in_progress' && b.request_counts.completed > 0, timeoutMs: 120_000 });
  say(`  batch ${batch.id}: ${lines} lines, in progress ${((Date.now() - submittedAt) / 1000).toFixed(1)} s after submission`);
  const cpuBefore = meter.read();
  const before = running.request_counts.completed + running.request_counts.failed;
  const busy = await runLoad(target, load);
  const cpuMs = CpuMeter.since(cpuBefore, meter.read());
  const during = await api<BatchState>(client, `/v1/batches/${batch.id}`);
  const linesDuring = during.request_counts.completed + during.request_counts.failed - before;
  say(describe('  busy', busy));
  const ratio = busy.latency.p50 / idle.latency.p50;
  say(`  batch lines during the window: ${linesDuring} (${(linesDuring / (busy.wallMs / 1000)).toFixed(1)}/s), still ${during.status}`);
  say(`  interactive p50 busy ÷ idle: ${ratio.toFixed(2)}× (goal ≤ 1.5×) ${ratio <= 1.5 ? 'met' : 'NOT MET'}`);

  let finished: { seconds: number; batch: BatchState } | null = null;
  if (args.finish) {
    const done = await waitForBatch(client, batch.id, { until: (b) => b.status === 'completed', timeoutMs: 30 * 60_000 });
    finished = { seconds: (Date.now() - submittedAt) / 1000, batch: done };
    say(`  batch completed in ${finished.seconds.toFixed(1)} s: ${JSON.stringify(done.request_counts)}`);
  } else {
    await api(client, `/v1/batches/${batch.id}/cancel`, { method: 'POST' });
  }
  const report = {
    machine,
    settings: { ...args, model: BENCH_MODEL },
    idle,
    busy,
    p50_ratio: Number(ratio.toFixed(3)),
    goal_met: ratio <= 1.5,
    batch_lines_during_window: linesDuring,
    cpu_ms_during_window: cpuMs,
    finished,
  };
  writeFileSync(args.out ?? path.join(__dirname, 'batch-fairness-results.json'), `${JSON.stringify(report, null, 2)}\n`);
  say(`wrote ${args.out}`);
}

main()
  .catch((err: unknown) => {
    say(`benchmark failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exitCode = 1;
  })
  .finally(() => cleanups.run());
