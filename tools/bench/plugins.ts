import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { allocationsDuring, SAMPLER_ARGS } from './allocations';
import { Cleanups } from './cleanups';
import { CpuMeter } from './cpu';
import { createBenchEnvironment, type BenchEnvironment } from './environment';
import { runLoad, type LoadResult, type LoadTarget } from './load';
import { checkPluginAnswer, pluginCellsTable, pluginRatiosTable, sampleSources, sourcesDiffer, type PluginCell } from './plugin-report';
import { PLUGIN_BENCH_PROMPT, seedSpaceFiles, setFetchPages } from './plugin-space';
import {
  buildService,
  checkOutBaseline,
  freePort,
  ROOT,
  startBenchEntry,
  startService,
  startUpstream,
  tailOf,
  waitFor200,
  WORKING_TREE,
  type Managed,
  type Runner,
  type ServiceSource,
} from './processes';
import { summariseProfile, type Window } from './profile-summary';
import { RoundTripMeter } from './round-trips';
import { startQueueFloor } from './queue-floor/start';
import { startPluginFloor } from './plugin-floor-start';
import { machineInfo } from './reliability/machine';
import { processRoles } from './process-roles';
import { profileTables } from './report';

/**
 * `npm run bench:plugins`: chat completions with `plugins: ['web-search', 'space-search']` through
 * Switchyard (API process → BullMQ → worker process, as `npm run bench` runs them) while both plugin
 * backends answer in `--latency` ms: the SearXNG simulator (web-search) and the embeddings simulator
 * (space-search's hybrid ranking over a Space with uploaded files in PostgreSQL). The model is the
 * simulator's, answering at once, so the ideal is clients ÷ latency completions/s at `latency` ms each
 * (the two plugins run concurrently). A second cell caps SearXNG with PLUGIN_CONCURRENCY_SEARXNG=--limit:
 * the ideal there is limit ÷ latency, and nothing may fail. A first cell, `floor`, runs tools/bench/plugin-floor.ts
 * in place of Switchyard (the least a gateway does for such a completion) against the same simulators:
 * what the machine allows; a second, `queue-floor`, runs tools/bench/queue-floor (an API and a worker process
 * with a BullMQ queue between them and a log row committed per request, calling the same backends): what a
 * gateway of Switchyard's shape allows; a third, `plugin-floor`, runs the queue floor's API with
 * tools/bench/plugin-floor-worker.ts, which does the plugins' work as Switchyard does it (a real search of the
 * Space's chunks, the same ranking, snippets and context): the bound of issue 34. Options: --duration,
 * --warmup (s), --skip-floor (every floor), --floors (which), --fetch-pages N, --source REF,
 * --skip-saturated, --workers N (worker processes), --concurrency, --latency (ms), --limit, --runner build|prebuilt|tsx, --profile
 * (with --profile-dir <folder> to keep the profiles), --allocations (bytes each side allocates per completion, as with
 * `npm run bench -- --allocations`; the sampler costs CPU, so read only the bytes of such a run), --promises (promises each side
 * creates per completion as well, as with `npm run bench -- --promises`), --out <file>.
 */
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '64' },
    latency: { type: 'string', default: '200' },
    limit: { type: 'string', default: '16' },
    runner: { type: 'string', default: 'build' },
    profile: { type: 'boolean', default: false },
    /** Where --profile writes the V8 CPU profiles, kept after the run (default: the scratch folder, removed). */
    'profile-dir': { type: 'string' },
    out: { type: 'string', default: path.join(__dirname, 'plugins-results.json') },
    /** Leaves out every floor cell. */
    'skip-floor': { type: 'boolean', default: false },
    /** Which floors run: `floor` (plugin-floor.ts, one process), `queue-floor`, `plugin-floor` (plugin-floor-worker.ts behind the queue floor's API). */
    floors: { type: 'string', default: 'floor,queue-floor,plugin-floor' },
    /** Leaves out the saturated cell (a quicker run while working on the unsaturated one). */
    'skip-saturated': { type: 'boolean', default: false },
    /** Worker processes beside the one API process. */
    workers: { type: 'string', default: '1' },
    allocations: { type: 'boolean', default: false },
    promises: { type: 'boolean', default: false },
    /**
     * Measures Switchyard at this commit (a detached worktree in the scratch folder, compiled there) rather
     * than the working tree: while others edit src/, the working tree may not build or run. The floors and the
     * harness stay the working tree's.
     */
    source: { type: 'string' },
    /**
     * web-search's `fetch_pages` in the Space's settings (0, its default: snippets only). Above 0, SearXNG's
     * results point at a page server in the backends' process, and Switchyard and the plugin floor fetch that
     * many result pages per request and reduce them to text.
     */
    'fetch-pages': { type: 'string', default: '0' },
  },
});

/** Where the compiled service's files resolve (node_modules may be a link to another checkout's), for the profile's project frames. */
const BUILD_ROOT = path.dirname(realpathSync(path.join(__dirname, '..', '..', 'node_modules')));
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const say = (text: string) => process.stdout.write(`${text}\n`);
const cleanups = new Cleanups(say);
/** With --allocations: the node arguments that load the sampler into every measured process (allocations.ts). */
const nodeArgs = args.allocations ? SAMPLER_ARGS : [];

interface Scenario {
  name: PluginCell['scenario'];
  /** Concurrent SearXNG calls allowed across workers. */
  searxngLimit: number;
}

interface Deployment {
  /** Switchyard's API and worker, or the floor server (named `api`, since it takes the API's place). */
  processes: Managed[];
  apiUrl: string;
}

function target(apiUrl: string, apiKey: string): LoadTarget {
  const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: PLUGIN_BENCH_PROMPT }], plugins: ['web-search', 'space-search'] };
  return { url: `${apiUrl}/v1/chat/completions`, headers: { authorization: `Bearer ${apiKey}` }, body, stream: false, check: checkPluginAnswer };
}

/** Sends one completion until it passes the check: worker up, plugins configured, Space files found. */
async function firstCompletion(t: LoadTarget, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline && alive()) {
    const res = await runLoad(t, { concurrency: 1, durationMs: 1, maxRequests: 1, timeoutMs: 20_000 });
    if (res.requests === 1) return;
    last = res.errorSamples.join('; ');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`no completion with both plugins through Switchyard: ${last.slice(0, 600)}`);
}

/** The checkout Switchyard runs from: the working tree, or `--source`'s commit. */
let source: ServiceSource = WORKING_TREE;

/** The main thread's profile among a tsx process's (its loader thread writes a small one beside it). */
function largestProfile(folder: string): string {
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => path.join(folder, name));
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0] ?? path.join(folder, 'missing.cpuprofile');
}

async function startDeployment(scenario: Scenario, { shared, scratch }: { shared: Record<string, string>; scratch: string }): Promise<Deployment> {
  const runner: Runner = args.runner === 'tsx' || args.runner === 'prebuilt' ? args.runner : 'build';
  const env = { ...shared, REDIS_PREFIX: `${shared.REDIS_PREFIX}_${scenario.name}`, PLUGIN_CONCURRENCY_SEARXNG: String(scenario.searxngLimit) };
  const profileDir = args.profile ? path.join(args['profile-dir'] ?? scratch, `profiles-${scenario.name}`) : undefined;
  const workers = Array.from({ length: Math.max(1, Number(args.workers)) }, (_, i) => {
    const name = i === 0 ? 'worker' : `worker ${i + 1}`;
    return startService({
      name,
      runner,
      source,
      logFile: path.join(scratch, `${scenario.name}-${name.replace(' ', '-')}.log`),
      cpuProfileDir: profileDir,
      nodeArgs,
      env: { ...env, SWITCHYARD_ROLE: 'workers' },
    });
  });
  const port = await freePort();
  const api = startService({
    name: 'api',
    runner,
    source,
    logFile: path.join(scratch, `${scenario.name}-api.log`),
    cpuProfileDir: profileDir,
    nodeArgs,
    env: { ...env, SWITCHYARD_ROLE: 'api', PORT: String(port), HOST: '127.0.0.1' },
  });
  const processes = [api, ...workers];
  const deployment = { processes, apiUrl: `http://127.0.0.1:${port}` };
  cleanups.push({ name: `${scenario.name} processes`, run: () => Promise.all(processes.map((p) => p.stop())) });
  try {
    await waitFor200(`${deployment.apiUrl}/readyz`, 30_000, () => processes.every((p) => p.child.exitCode === null));
  } catch (err) {
    for (const p of processes) say(`--- ${p.name}.log ---\n${tailOf(p.logFile)}`);
    throw err;
  }
  return deployment;
}

/** The floor server in place of Switchyard, against the same simulators. */
async function startFloor(urls: { searxng: string; embeddings: string; model: string }): Promise<Deployment> {
  const floor = await startBenchEntry<{ url: string }>('plugin-floor.ts', [urls.searxng, urls.embeddings, urls.model], nodeArgs);
  cleanups.push({ name: 'floor server', run: () => floor.stop() });
  return { processes: [{ ...floor, name: 'api' }], apiUrl: floor.ready.url };
}

async function measure(
  scenario: Scenario,
  { deployment, env, others }: { deployment: Deployment; env: BenchEnvironment; others: Managed[] },
): Promise<PluginCell> {
  const t = target(deployment.apiUrl, env.apiKey);
  const alive = () => deployment.processes.every((p) => p.child.exitCode === null);
  await firstCompletion(t, alive).catch((err: unknown) => {
    for (const p of deployment.processes) if (p.logFile) say(`--- ${p.name}.log ---\n${tailOf(p.logFile)}`);
    throw err;
  });
  const sources = await sampleSources(t);
  const concurrency = Number(args.concurrency);
  const latencyMs = Number(args.latency);
  const load = { concurrency, durationMs: 0, maxRequests: 1_000_000, timeoutMs: 30_000 };
  await runLoad(t, { ...load, durationMs: Number(args.warmup) * 1000 });
  const pids = () => Object.fromEntries([...deployment.processes, ...others].map((p) => [p.name, p.child.pid]));
  const meter = new CpuMeter(pids, env.databaseName);
  const trips = new RoundTripMeter(env);
  const tripsBefore = await trips.read();
  const before = meter.read();
  const allocationDir = args.allocations || args.promises ? (process.env.ALLOCATION_SAMPLER_DIR ?? null) : null;
  const { value: result, allocated } = await allocationsDuring(allocationDir, processRoles(deployment.processes), (): Promise<LoadResult> =>
    runLoad(t, { ...load, durationMs: Number(args.duration) * 1000 }),
  );
  const cpuMs = CpuMeter.since(before, meter.read());
  const roundTrips = RoundTripMeter.since(tripsBefore, await trips.read(), result.requests);
  const slots = Math.min(concurrency, scenario.searxngLimit);
  const cell: PluginCell = {
    scenario: scenario.name,
    sources,
    concurrency,
    searxngLimit: scenario.searxngLimit,
    backendLatencyMs: latencyMs,
    idealRps: slots / (latencyMs / 1000),
    idealLatencyMs: (latencyMs * concurrency) / slots,
    result,
    cpuMs,
    roundTrips,
  };
  if (allocated) {
    const per = (side: number) => side / Math.max(1, result.requests);
    const { bytes, promises } = allocated;
    const figures = {
      api: per(bytes.api),
      worker: per(bytes.worker),
      ...(args.promises ? { apiPromises: per(promises.api), workerPromises: per(promises.worker) } : {}),
    };
    cell.allocations = figures;
    const counted = (side: number | undefined) => (side === undefined ? '' : ` and ${side.toFixed(1)} promises`);
    say(
      `    allocated per completion: API ${(figures.api / 1024).toFixed(1)} KB${counted(figures.apiPromises)}, worker ${(figures.worker / 1024).toFixed(1)} KB${counted(figures.workerPromises)}`,
    );
  }
  const errors = result.errors > 0 ? `, ${result.errors} failed (${result.errorSamples.join('; ')})` : '';
  say(
    `  ${scenario.name.padEnd(10)} c=${concurrency} SearXNG limit ${scenario.searxngLimit}: ${result.rps.toFixed(1)} completions/s (ideal ${cell.idealRps.toFixed(0)}), p50 ${result.latency.p50.toFixed(1)} ms, p99 ${result.latency.p99.toFixed(1)} ms${errors}`,
  );
  const commands = Object.entries(roundTrips.redisPerCompletion)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  say(
    `    per completion: Redis ${roundTrips.redisTotalPerCompletion} commands (${commands}); PostgreSQL ${roundTrips.pgTransactionsPerCompletion} transactions`,
  );
  return cell;
}

async function main(): Promise<void> {
  const started = Date.now();
  const machine = machineInfo();
  say(`Switchyard plugins benchmark on ${machine.cpu_model} × ${machine.cores}, Node ${machine.node}, load average ${machine.load_average_at_start.join(' ')}`);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-plugins-'));
  cleanups.push({ name: 'scratch folder', run: async () => rmSync(scratch, { recursive: true, force: true }) });
  // The sampler's folder reaches every process started after this through the environment.
  if (args.allocations || args.promises) {
    if (args.promises) process.env.ALLOCATION_SAMPLER_PROMISES = '1';
    process.env.ALLOCATION_SAMPLER_DIR = path.join(scratch, 'allocations');
    mkdirSync(process.env.ALLOCATION_SAMPLER_DIR);
  }
  if (args.source) {
    const checkout = checkOutBaseline(args.source, scratch, 'source');
    cleanups.push({ name: 'source checkout', run: async () => checkout.remove() });
    source = checkout;
    say(`Switchyard from ${args.source} (${checkout.commit.slice(0, 7)}), checked out in ${checkout.root}`);
  }
  if (args.runner === 'build' || args.runner === undefined) say(`compiled the service with tsc in ${(buildService(source).ms / 1000).toFixed(1)} s`);
  const env = await createBenchEnvironment();
  cleanups.push({ name: 'database and Redis keys', run: () => env.destroy() });
  const upstream = await startUpstream('simulator');
  cleanups.push({ name: 'upstream', run: () => upstream.stop() });
  const fetchPages = Number(args['fetch-pages']);
  const backends = await startBenchEntry<{ searxng: string; embeddings: string }>('plugin-backends.ts', [
    String(args.latency),
    fetchPages > 0 ? 'pages' : 'no-pages',
  ]);
  cleanups.push({ name: 'plugin backends', run: () => backends.stop() });
  const shared = {
    NODE_ENV: 'production',
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    REDIS_PREFIX: env.redisPrefix,
    OPENAI_API_KEY: 'bench',
    OPENAI_BASE_URL: `${upstream.url}/openai/v1`,
    LOG_LEVEL: 'warn',
    SHUTDOWN_GRACE_MS: '5000',
    WEB_SEARCH_BACKEND: 'searxng',
    SEARXNG_BASE_URL: backends.ready.searxng,
    EMBEDDINGS_BASE_URL: backends.ready.embeddings,
    EMBEDDINGS_API_KEY: 'bench',
    EMBEDDINGS_MODEL: 'text-embedding-3-small',
    // Every request asks the same question: a cache would answer it without the backends.
    PLUGIN_CACHE_TTL_SECONDS: '0',
    PLUGIN_CONCURRENCY: String(Math.max(256, Number(args.concurrency))),
    SSRF_ALLOWED_HOSTS: '127.0.0.1',
  };
  const unsaturated: Scenario = { name: 'plugins', searxngLimit: Math.max(256, Number(args.concurrency)) };
  const every: Scenario[] = [unsaturated, { name: 'saturated', searxngLimit: Number(args.limit) }];
  const scenarios = every.filter((scenario) => !(args['skip-saturated'] && scenario.name === 'saturated'));
  const cells: PluginCell[] = [];
  const others = [
    { ...upstream, name: 'upstream' },
    { ...backends, name: 'plugin backends' },
  ];
  const floors = new Set(args['skip-floor'] ? [] : (args.floors ?? '').split(',').map((name) => name.trim()));
  // The Space's files are ingested by Switchyard (upload, chunking, embeddings) before any cell: the plugin floor searches them too.
  const seeding = await startDeployment(unsaturated, { shared, scratch });
  const files = await seedSpaceFiles(seeding.apiUrl, { apiKey: env.apiKey, appId: env.appId });
  if (fetchPages > 0) await setFetchPages(seeding.apiUrl, { apiKey: env.apiKey, appId: env.appId, fetchPages });
  await Promise.all(seeding.processes.map((p) => p.stop()));
  if (floors.has('floor')) {
    const floor = await startFloor({ ...backends.ready, model: `${upstream.url}/openai/v1` });
    cells.push(await measure({ name: 'floor', searxngLimit: Number(args.concurrency) }, { deployment: floor, env, others }));
    await Promise.all(floor.processes.map((p) => p.stop()));
  }
  if (floors.has('queue-floor')) {
    const queueFloor = await startQueueFloor(env, `${upstream.url}/openai/v1`, { backends: backends.ready, nodeArgs });
    cleanups.push({ name: 'queue floor', run: () => Promise.all(queueFloor.processes.map((p) => p.stop())) });
    const deployment = { processes: queueFloor.processes.map((p) => ({ ...p, name: p.name === 'floor api' ? 'api' : 'worker' })), apiUrl: queueFloor.url };
    cells.push(await measure({ name: 'queue-floor', searxngLimit: Number(args.concurrency) }, { deployment, env, others }));
    await Promise.all(queueFloor.processes.map((p) => p.stop()));
  }
  if (floors.has('plugin-floor')) {
    const profileDir = args.profile ? (args['profile-dir'] ?? scratch) : undefined;
    const pluginFloor = await startPluginFloor(env, `${upstream.url}/openai/v1`, { backends: backends.ready, fetchPages, profileDir, nodeArgs });
    cleanups.push({ name: 'plugin floor', run: () => Promise.all(pluginFloor.processes.map((p) => p.stop())) });
    const from = nowUs();
    cells.push(
      await measure(
        { name: 'plugin-floor', searxngLimit: Number(args.concurrency) },
        { deployment: { processes: pluginFloor.processes, apiUrl: pluginFloor.url }, env, others },
      ),
    );
    const window: Window = [from, nowUs()];
    await Promise.all(pluginFloor.processes.map((p) => p.stop()));
    if (profileDir) say(profileTables([summariseProfile(largestProfile(path.join(profileDir, 'plugin-floor-worker')), { root: ROOT, windows: [window] })]));
  }
  for (const scenario of scenarios) {
    const deployment = await startDeployment(scenario, { shared, scratch });
    const from = nowUs();
    cells.push(await measure(scenario, { deployment, env, others }));
    const window: Window = [from, nowUs()];
    await Promise.all(deployment.processes.map((p) => p.stop()));
    if (args.profile)
      say(
        profileTables(
          ['api', 'worker'].map((name) =>
            summariseProfile(path.join(args['profile-dir'] ?? scratch, `profiles-${scenario.name}`, `${name}.cpuprofile`), {
              root: args.source ? source.root : BUILD_ROOT,
              windows: [window],
            }),
          ),
        ),
      );
  }
  say(`\n${pluginCellsTable(cells, machine.cores)}`);
  say(`\n${pluginRatiosTable(cells)}`);
  const pluginFloorCell = cells.find((c) => c.scenario === 'plugin-floor');
  const switchyardCell = cells.find((c) => c.scenario === 'plugins');
  if (pluginFloorCell && switchyardCell)
    say(
      `\nsources: ${sourcesDiffer(pluginFloorCell, switchyardCell) ?? `the plugin floor's ${pluginFloorCell.sources?.length ?? 0} are Switchyard's (same order, scores and snippets)`}`,
    );
  const report = {
    machine,
    settings: { ...args, files, prompt: PLUGIN_BENCH_PROMPT, node_env: 'production' },
    cells,
    total_seconds: Number(((Date.now() - started) / 1000).toFixed(1)),
  };
  writeFileSync(args.out ?? path.join(__dirname, 'plugins-results.json'), `${JSON.stringify(report, null, 2)}\n`);
  say(`\nwrote ${args.out} in ${report.total_seconds} s`);
}

main()
  .catch((err: unknown) => {
    say(`benchmark failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exitCode = 1;
  })
  .finally(() => cleanups.run());
