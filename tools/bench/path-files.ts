import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { startRuntime, type Runtime } from '../../src/app/runtime';
import { loadConfig } from '../../src/config/load';
import { createLogger } from '../../src/logging/logger';
import { startSimulator, type Simulator } from '../../test/simulator/server';
import { createBenchEnvironment, type BenchEnvironment } from './environment';
import { CoverageWindow, filesBeyond, filesRun, formatGrouped, functionKeys, runFiles, type Coverage, type FileCalls } from './path-files-coverage';

/**
 * Issue 34's "files on one plain JSON completion's path": the files under src/ and workers/ with at
 * least one function called while Switchyard answers one completion and writes its log.
 *
 *   npm run path:files                         one JSON completion
 *   npm run path:files -- --mode stream        one streamed completion
 *   npm run path:files -- --mode both --json out.json
 *
 * The service runs in this process as `SWITCHYARD_ROLE=single` runs it (startRuntime: the API and the
 * workers on one event loop), so one V8 precise coverage covers both; the OpenAI simulator (test/simulator)
 * runs here too, on its own port (its files are under test/, not counted). The Space has only gpt-4o-mini
 * active (the bench's environment); the request names no model, so the router chooses.
 *
 * Per mode: warm-up completions of both kinds; a wait for every cache to expire and one completion that
 * loads them again; a reset of the call counts, one completion until its log row is in PostgreSQL, a take
 * (the request's window); a pause, then an idle window with no request, whose functions (timers that fire
 * whatever the requests) are subtracted. tools/bench/PATH-FILES.md has the method and results.
 */

const ROOT = path.resolve(__dirname, '../..');
const PROMPT = 'Say hello to the benchmark.';

type Mode = 'json' | 'stream';

interface ModeResult {
  mode: Mode;
  /** Length of the request's window (request sent → log row seen → coverage taken), in ms. */
  windowMs: number;
  /** Length of the idle window, in ms. */
  idleMs: number;
  /** Files whose own functions ran in the request's window. */
  raw: string[];
  /** Files with a function that ran in the request's window and not in the idle window (the count). */
  subtracted: string[];
  /** `raw` without every file that ran anything in the idle window (coarser: drops a file on the path that also holds a timer). */
  fileSubtracted: string[];
  /** Files whose own functions ran in the idle window. */
  idle: string[];
  /** Files of the request's window only read through their export bindings (constants, re-exports): not counted. */
  bindingsOnly: string[];
  /** Per file of `raw`, the functions that ran in the request's window (`*` marks one that ran in the idle window too). */
  functions: Record<string, string[]>;
}

function usage(): never {
  process.stderr.write('usage: npm run path:files -- [--mode json|stream|both] [--json <file>] [--warmup <n>] [--idle-ms <ms>|same] [--verbose]\n');
  process.exit(2);
}

function git(args: string[]): string {
  const result = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : '';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One completion; resolves with its log id once the whole answer (every event, when streamed) is read. */
async function complete(apiUrl: string, env: BenchEnvironment, mode: Mode): Promise<string> {
  const res = await fetch(`${apiUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.apiKey}`, 'content-type': 'application/json' },
    // No model (the router chooses), no plugins, no Idempotency-Key.
    body: JSON.stringify({ messages: [{ role: 'user', content: PROMPT }], ...(mode === 'stream' ? { stream: true } : {}) }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`completion answered ${res.status}: ${text.slice(0, 400)}`);
  if (mode === 'stream' && !text.includes('[DONE]')) throw new Error(`stream without [DONE]: ${text.slice(0, 400)}`);
  const logId = res.headers.get('x-switchyard-log-id');
  if (!logId) throw new Error('no x-switchyard-log-id header');
  return logId;
}

/** Polls PostgreSQL (through `pg` directly: no Switchyard code in the window) until the log row exists. */
async function logRowWritten(pg: Client, logId: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const { rowCount } = await pg.query('SELECT 1 FROM logs WHERE id = $1', [logId]);
    if ((rowCount ?? 0) > 0) return;
    await sleep(2);
  }
  throw new Error(`log ${logId} not written within 15 s`);
}

interface Windows {
  mode: Mode;
  windowMs: number;
  idleMs: number;
  during: Coverage;
  idle: Coverage;
}

/**
 * Longer than every cache TTL of the request's path (the Space's context and its feedback, 2 s; the API
 * key's auth context, AUTH_CACHE_TTL_MS, 5 s by default), in ms: waited before the completion that precedes
 * a window, so that completion loads them all afresh and the window, a moment later, finds them loaded.
 * Without it, whether a cache's expiry fell into the window was left to chance.
 */
const CACHES_EXPIRED_MS = 5500;

/** Between that completion (once its log row is written) and the window's reset, in ms: its trailing work settles. */
const SETTLE_MS = 250;

/**
 * Between the request's window and the idle window, in ms: the request's own deferred work (the circuit
 * breakers' 1 s flush of its success, a batched write) happens here, not in the idle window, where it
 * would pass for a timer's.
 */
const IDLE_GAP_MS = 1500;

/**
 * The idle window by default, in ms: longer than the period of every timer that runs on an idle
 * service (heartbeats 250 ms, the circuit breakers' flush 1 s, the reply channels' probe 2 s, the loop
 * watchdog), so each fires in it at least once, and a timer that happened to fire in the request's
 * window is subtracted whatever the phase. `--idle-ms same` makes it as long as the request's window.
 */
const DEFAULT_IDLE_MS = 3000;

/**
 * One completion of the mode just before, with every cache loaded afresh (the steady state of a Space
 * in use), then the request's window (reset, one completion until its log row, take), then, after a
 * pause, the idle window.
 */
async function measure(
  mode: Mode,
  ctx: { window: CoverageWindow; apiUrl: string; env: BenchEnvironment; pg: Client; idleMs: number | 'same' },
): Promise<Windows> {
  const { window, apiUrl, env, pg } = ctx;
  await sleep(CACHES_EXPIRED_MS);
  await logRowWritten(pg, await complete(apiUrl, env, mode));
  await sleep(SETTLE_MS);
  await window.take();
  const started = performance.now();
  const logId = await complete(apiUrl, env, mode);
  await logRowWritten(pg, logId);
  const during = await window.take();
  const windowMs = performance.now() - started;
  await sleep(IDLE_GAP_MS);
  const idleMs = ctx.idleMs === 'same' ? windowMs : ctx.idleMs;
  await window.take();
  await sleep(idleMs);
  const idle = await window.take();
  return { mode, windowMs, idleMs, during, idle };
}

/** The files of both windows (after every window: reading the scripts' sources needs the debugger on). */
async function analyse({ mode, windowMs, idleMs, during, idle: idleCoverage }: Windows, window: CoverageWindow): Promise<ModeResult> {
  const calls = await filesRun(during, ROOT, window);
  const idleCalls = await filesRun(idleCoverage, ROOT, window);
  const raw = runFiles(calls);
  const idle = runFiles(idleCalls);
  const idleFunctions = functionKeys(idleCalls);
  const functions: Record<string, string[]> = {};
  for (const file of raw) {
    functions[file] = (calls.get(file) as FileCalls).functions.map((fn) => `${fn.name}@${fn.offset}${idleFunctions.has(`${file}#${fn.offset}`) ? '*' : ''}`);
  }
  return {
    mode,
    windowMs: Math.round(windowMs),
    idleMs: Math.round(idleMs),
    raw,
    subtracted: filesBeyond(calls, idleFunctions),
    fileSubtracted: raw.filter((file) => !idle.includes(file)),
    idle,
    bindingsOnly: [...calls.values()]
      .filter((entry) => entry.functions.length === 0)
      .map((entry) => entry.file)
      .sort(),
    functions,
  };
}

function report(result: ModeResult, verbose: boolean): string {
  const lines = [
    `\n=== one ${result.mode === 'json' ? 'plain JSON' : 'streamed'} completion: request window ${result.windowMs} ms, idle window ${result.idleMs} ms ===`,
    `files: ${result.raw.length} raw, ${result.subtracted.length} idle-subtracted (${result.fileSubtracted.length} when a file that ran anything idle is dropped whole)`,
    `ran in the idle window: ${result.idle.join(', ') || 'nothing'}`,
    `\nidle-subtracted (${result.subtracted.length}):`,
    formatGrouped(result.subtracted),
  ];
  const timersOnly = result.raw.filter((file) => !result.subtracted.includes(file));
  if (timersOnly.length > 0) lines.push(`\nraw only (every function it ran also ran idle): ${timersOnly.join(', ')}`);
  if (result.bindingsOnly.length > 0) lines.push(`\nonly an export binding read (not counted): ${result.bindingsOnly.join(', ')}`);
  if (verbose) {
    lines.push('\nfunctions called per file (name@offset in the transpiled script; * also ran idle):');
    for (const [file, names] of Object.entries(result.functions)) lines.push(`  ${file}: ${names.join(', ')}`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      mode: { type: 'string', default: 'json' },
      json: { type: 'string' },
      warmup: { type: 'string', default: '5' },
      'idle-ms': { type: 'string' },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (args.help) usage();
  const modes: Mode[] = args.mode === 'both' ? ['json', 'stream'] : args.mode === 'json' || args.mode === 'stream' ? [args.mode] : usage();
  const warmup = Number(args.warmup);
  const idleMs = args['idle-ms'] === undefined ? DEFAULT_IDLE_MS : args['idle-ms'] === 'same' ? 'same' : Number(args['idle-ms']);
  if (!Number.isInteger(warmup) || warmup < 1 || (idleMs !== 'same' && !(idleMs >= 0))) usage();

  const session = new Session();
  session.connect();
  const window = await CoverageWindow.start(session);

  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const env = await createBenchEnvironment();
    cleanups.push(() => env.destroy());
    const sim: Simulator = await startSimulator({ record: false });
    cleanups.push(() => sim.close());
    const config = loadConfig({
      ...process.env,
      NODE_ENV: process.env.NODE_ENV ?? 'production',
      SWITCHYARD_ROLE: 'single',
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.redisPrefix,
      OPENAI_API_KEY: 'bench',
      OPENAI_BASE_URL: sim.baseUrls.openai,
      // error: the loop watchdog's warning about the stall that reading the scripts' sources causes, after the windows, is noise.
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
      SHUTDOWN_GRACE_MS: '5000',
    });
    const runtime: Runtime = await startRuntime({ ...config, port: 0, host: '127.0.0.1' }, createLogger(config.logLevel));
    cleanups.unshift(() => runtime.stop());
    const apiUrl = `http://127.0.0.1:${runtime.port}`;
    const pg = new Client({ connectionString: env.databaseUrl });
    await pg.connect();
    cleanups.unshift(() => pg.end());

    // Warm-up: both kinds whatever the mode, each until its log row, so no first-time work (a lazy
    // import, a cache's first fill, a prepared statement) falls into a window.
    for (let i = 0; i < warmup; i += 1) {
      for (const mode of ['json', 'stream'] as const) await logRowWritten(pg, await complete(apiUrl, env, mode));
    }

    const windows: Windows[] = [];
    for (const mode of modes) windows.push(await measure(mode, { window, apiUrl, env, pg, idleMs }));
    await window.enableSources();
    const results: ModeResult[] = [];
    for (const taken of windows) results.push(await analyse(taken, window));

    const head = git(['rev-parse', '--short', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--', 'src', 'workers']) !== '';
    process.stdout.write(
      `path:files at ${head}${dirty ? ' + uncommitted changes under src/ or workers/' : ''} (${ROOT}); role single (API and workers in this process)\n`,
    );
    for (const result of results) process.stdout.write(`${report(result, args.verbose)}\n`);
    if (args.json) {
      writeFileSync(args.json, `${JSON.stringify({ commit: head, dirty, root: ROOT, role: 'single', results }, null, 2)}\n`);
      process.stdout.write(`\nwritten to ${args.json}\n`);
    }
  } finally {
    for (const cleanup of cleanups) await cleanup().catch((err: unknown) => process.stderr.write(`cleanup failed: ${String(err)}\n`));
    await session.post('Profiler.stopPreciseCoverage').catch(() => undefined);
    session.disconnect();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`path:files failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
