import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CpuMeter } from './cpu';
import { allocationTable, SAMPLER_ARGS } from './allocations';
import { redisKindOf, startBenchRedis, type BenchRedis } from './bench-redis';
import { runCells } from './cells';
import { commandGoals, commandsTable, countCommandsPerPath, mastersTable, type CountedPath } from './commands-window';
import { commandTargets, targetsLine, targetsOf } from './targets';
import { machineInfo } from './reliability/machine';
import { BENCH_MODEL, createBenchEnvironment, settledLogs, type BenchEnvironment } from './environment';
import { runLoad, type LoadClient } from './load';
import { PROMPT, targetFor, type Endpoints } from './path-targets';
import { layoutOf, startDeployment, type Deployment } from './deployment';
import { startUpstream, type Managed, type Runner, type ServiceSource } from './processes';
import { prepareSources, type MeasuredSource } from './sources';
import { startPortkey } from './portkey';
import type { QueueFloor } from './queue-floor/start';
import { floorReport, type ProcessesOf } from './floor-goals';
import { FLOOR_PATHS, floorKinds, startFloors } from './floors';
import { processRoles } from './process-roles';
import { countRoundTrips, type RoundTripsBySide } from './redis-round-trips';
import { roundTripsTable } from './round-trips-report';
import { runSoak, writeSoakReport } from './soak';
import { summariseProfile, type ProfileSummary } from './profile-summary';
import { stageBudgets, stageBudgetTable, type ProfiledCell } from './stage-budget';
import { baselineTable, cellsTable, compare, compareWithBaseline, comparisonTable, cpuTable, profileTables, type Mode, type Path } from './report';

/**
 * `npm run bench`: the upstream called directly and through Switchyard (API process → BullMQ →
 * worker process → upstream → reply over Redis, request log written), JSON and streaming, at 1 and 64
 * clients. Options: --duration and --warmup (seconds per cell), --warmup-first (seconds each path but direct runs at 64 clients,
 * its modes in turn, before the first cell: 10; 0 for none), --concurrency 1,64, --modes json,stream,
 * --runner build|prebuilt|tsx, --upstream simulator|minimal, --log-level warn, --privacy-level 1 (3 writes no request
 * logs; needs a GDPR model such as --model mistral-small-2506), --model gpt-4o-mini, --routing auto|named (auto, the
 * default: the Space has several active models and a rate limit, and requests leave `model` out; named: requests name --model), --layout start|roles|single (as
 * `npm start` runs it, a supervisor and its children; separate API and worker processes; or one SWITCHYARD_ROLE=single process), --api-processes N and
 * --workers N (default: the service's own, one per core; 1 worker under `roles`), --peer portkey|none (the Portkey gateway measured on the same upstream),
 * --floor queue,express,required,configured|any of them|none (the floors, tools/bench/queue-floor: the least a gateway of Switchyard's shape
 * does, one API and one worker process, with its HTTP edge on bare node:http (`queue`) or on Express 5 (`express`, the reference of issue 20's
 * goals); `required`: the Express floor plus the work issue 20's configuration and the fault suite leave no implementation without;
 * `configured`: the required floor plus the rest of that configuration, each part the leanest way: the key, validation, routing among
 * the active models, breakers, metrics, costs and savings; it is sent what Switchyard is sent, with the bench's key),
 * --soak [--soak-minutes 10] [--soak-warmup-minutes 5] (instead of the cells: 64 clients on Switchyard, half of them streaming, the RSS
 * of its API and worker processes every 10 s and their growth over the minutes after warm-up, a linear fit, against 1 MB/min; to soak-results.json),
 * --load-client raw|node (bare sockets with the request built once, the default: a load generator about as light as autocannon; or
 * node:http clients with a keep-alive agent, the load generator of runs before issue 20: load.ts),
 * --skip-round-trips (no Redis round-trip count per completion, API and worker apart, counted with MONITOR after the cells,
 * the servers' own count of the same window beside it),
 * --commands-completions 1000 --commands-concurrency 64 (the counting window after the cells: per path and mode, that many
 * completions at that many clients, the servers' INFO commandstats read before and after: Redis commands per completion,
 * a Lua script's commands included, by name, against issue 34's goal of ≤ 5 beyond the Express floor's; 0 for none; commands-window.ts),
 * --redis shared|own|cluster (where Switchyard's Redis is: the shared test Redis, the default; a throwaway redis-server of the
 * run's own, for every path, so the counts are the run's alone; or a throwaway three-master Redis Cluster on loopback ports,
 * REDIS_CLUSTER_NODES, for Switchyard and the baseline, with each master's commands and share in the counting window against
 * the goal of no master above 45%; the floors stay on the shared Redis; `--redis-cluster` is the older spelling),
 * --profile [--keep-profiles <dir>] (with a folder to keep them in, the floors' processes are profiled too, into <dir>/floors),
 * --allocations (bytes each side allocates per completion in every measured cell, from V8's sampling heap profiler in Switchyard's
 * and the floors' processes: steadier than CPU here; the sampler costs CPU, so read only the bytes of such a run; --promises
 * counts the promises each side creates per completion too, which adds to the bytes),
 * --out <file>, --baseline <git ref> (that commit too, built from a checkout beside this one and
 * measured in the same run, cell by cell, as a "before" for the working tree's "after", each side in --stretches 2 parts of
 * the cell (each after its own warm-up), A-B-B-A and B-A-A-B in turn, so neither is always measured first (cells.ts;
 * --fixed-order measures each whole, Switchyard first, as before, only to show that order's bias); --baseline-api-processes N and
 * --baseline-workers N size it apart, e.g. `--baseline HEAD` to compare process counts; --baseline-layout lays it out apart, e.g.
 * `--layout single --baseline HEAD --baseline-layout start`), --switchyard-ref <git ref> (that commit as Switchyard instead of
 * the working tree, checked out and compiled as the baseline is: `--switchyard-ref HEAD --baseline HEAD` is an A/A run).
 */
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    'warmup-first': { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '1,64' },
    modes: { type: 'string', default: 'json,stream' },
    runner: { type: 'string', default: 'build' },
    upstream: { type: 'string', default: 'simulator' },
    'log-level': { type: 'string', default: 'warn' },
    'privacy-level': { type: 'string', default: '1' },
    layout: { type: 'string', default: 'start' },
    'baseline-layout': { type: 'string' },
    'api-processes': { type: 'string' },
    workers: { type: 'string' },
    'baseline-api-processes': { type: 'string' },
    'baseline-workers': { type: 'string' },
    peer: { type: 'string', default: 'portkey' },
    floor: { type: 'string', default: 'queue,express,required,configured' },
    'skip-round-trips': { type: 'boolean', default: false },
    'load-client': { type: 'string', default: 'raw' },
    soak: { type: 'boolean', default: false },
    'soak-minutes': { type: 'string', default: '10' },
    'soak-warmup-minutes': { type: 'string' },
    redis: { type: 'string', default: 'shared' },
    'redis-cluster': { type: 'boolean', default: false },
    'commands-completions': { type: 'string', default: '1000' },
    'commands-concurrency': { type: 'string', default: '64' },
    model: { type: 'string', default: BENCH_MODEL },
    routing: { type: 'string', default: 'auto' },
    profile: { type: 'boolean', default: false },
    'keep-profiles': { type: 'string' },
    allocations: { type: 'boolean', default: false },
    promises: { type: 'boolean', default: false },
    baseline: { type: 'string' },
    'switchyard-ref': { type: 'string' },
    'fixed-order': { type: 'boolean', default: false },
    stretches: { type: 'string', default: '2' },
    out: { type: 'string' },
  },
});

const say = (text: string) => process.stdout.write(`${text}\n`);
const loadClient: LoadClient = args['load-client'] === 'node' ? 'node' : 'raw';

/** Things to undo, newest first, whether the run succeeds or not. */
const cleanups: { name: string; run: () => Promise<unknown> }[] = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    const step = cleanups.pop();
    if (!step) break;
    await step.run().catch((err: unknown) => say(`cleanup "${step.name}" failed: ${String(err)}`));
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`\n${signal}: cleaning up`);
    cleanUp().finally(() => process.exit(130));
  });
}

interface Stack {
  env: BenchEnvironment;
  /** Which Redis the run uses (--redis) and where Switchyard's commands land. */
  redis: BenchRedis;
  upstream: Managed & { url: string };
  /** The working tree's Switchyard, then the baseline's when one is compared. */
  deployments: Deployment[];
  /** The peer gateway (Portkey) on the same upstream, unless `--peer none`. */
  peer: (Managed & { url: string }) | null;
  /** The floors (tools/bench/queue-floor) `--floor` names: bare node:http, Express 5, Express 5 with the required work, and with all the configuration's. */
  floors: QueueFloor[];
  profileDir: string | null;
  /** The baseline's profiles (--profile with --baseline). */
  baselineProfileDir: string | null;
  /** Where the allocation sampler writes (--allocations). */
  allocationDir: string | null;
}

async function startStack(
  runner: Runner,
  scratch: string,
  { switchyard, baseline }: { switchyard: MeasuredSource; baseline: ServiceSource | null },
): Promise<Stack> {
  const created = await createBenchEnvironment({
    privacyLevel: Number(args['privacy-level']),
    model: args.model,
    routing: args.routing === 'named' ? 'named' : 'auto',
  });
  cleanups.push({ name: 'database and Redis keys', run: () => created.destroy() });
  const redis = await startBenchRedis(redisKindOf(args.redis, args['redis-cluster'] === true), created.redisUrl);
  cleanups.push({ name: `Redis (${redis.kind})`, run: () => redis.stop() });
  if (redis.kind !== 'shared') say(`Redis: ${redis.kind}, Switchyard's commands on ${redis.serviceNodes.join(', ')}`);
  // With --redis own, every path (floors too) uses the run's own server.
  const env: BenchEnvironment = { ...created, redisUrl: redis.url };
  const upstream = await startUpstream(args.upstream === 'minimal' ? 'minimal' : 'simulator');
  cleanups.push({ name: 'upstream', run: () => upstream.stop() });
  const profileDir = args.profile ? path.join(scratch, 'profiles') : null;
  const allocationDir = args.allocations || args.promises ? path.join(scratch, 'allocations') : null;
  if (args.promises) process.env.ALLOCATION_SAMPLER_PROMISES = '1';
  if (allocationDir) mkdirSync(allocationDir);
  // The sampler's folder reaches the floors' processes through this process's environment, Switchyard's through `shared`.
  if (allocationDir) process.env.ALLOCATION_SAMPLER_DIR = allocationDir;
  const nodeArgs = allocationDir ? SAMPLER_ARGS : [];
  const shared = {
    NODE_ENV: 'production',
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    OPENAI_API_KEY: 'bench',
    OPENAI_BASE_URL: `${upstream.url}/openai/v1`,
    [`${env.model.provider.toUpperCase()}_API_KEY`]: 'bench',
    [`${env.model.provider.toUpperCase()}_BASE_URL`]: `${upstream.url}/openai/v1`,
    LOG_LEVEL: args['log-level'] ?? 'warn',
    SHUTDOWN_GRACE_MS: '5000',
    ...redis.serviceEnv,
  };
  const layout = layoutOf(args.layout);
  const sizes = {
    apiProcesses: args['api-processes'] ? Number(args['api-processes']) : undefined,
    workerProcesses: args.workers ? Number(args.workers) : undefined,
  };
  const started = (managed: Managed) => cleanups.push({ name: `${managed.name} process`, run: () => managed.stop() });
  const common = { shared, scratch, layout, ...sizes, started, nodeArgs };
  const deployments = [await startDeployment({ path: 'switchyard', runner, source: switchyard, profileDir, ...common }, env)];
  // The baseline serves the same Space from the same database, on its own queues; with --profile it is
  // profiled too, into its own folder, for a per-stage budget before and after in the same run.
  // Its own sizes, when given: `--baseline HEAD --baseline-workers 1` compares process counts of the same code.
  const baselineSizes = {
    ...(args['baseline-api-processes'] ? { apiProcesses: Number(args['baseline-api-processes']) } : {}),
    ...(args['baseline-workers'] ? { workerProcesses: Number(args['baseline-workers']) } : {}),
    ...(args['baseline-layout'] ? { layout: layoutOf(args['baseline-layout']) } : {}),
  };
  const baselineProfileDir = args.profile && baseline ? path.join(scratch, 'profiles-baseline') : null;
  if (baseline)
    deployments.push(
      await startDeployment({ path: 'baseline', runner: 'prebuilt', source: baseline, profileDir: baselineProfileDir, ...common, ...baselineSizes }, env),
    );
  const peer = args.peer === 'portkey' && !args.soak ? await startPortkey(path.join(scratch, 'portkey.log')) : null;
  if (peer) cleanups.push({ name: 'portkey', run: () => peer.stop() });
  // With --keep-profiles, the floors are profiled too: a function's cost beside the least the shape needs.
  const floorProfileDir = args.profile && args['keep-profiles'] ? path.join(args['keep-profiles'], 'floors') : null;
  const floors = await startFloors(env, `${upstream.url}/openai/v1`, {
    kinds: args.soak ? [] : floorKinds(args.floor),
    started: (floor) => floor.processes.forEach((managed) => cleanups.push({ name: managed.name, run: () => managed.stop() })),
    ...(floorProfileDir ? { profileDir: floorProfileDir } : {}),
    nodeArgs,
  });
  return { env, redis, upstream, deployments, peer, floors, profileDir, baselineProfileDir, allocationDir };
}

/** The CPU meter's names of each path's own processes. */
function processesOf(stack: Stack): ProcessesOf {
  const out: ProcessesOf = {};
  for (const floor of stack.floors) out[FLOOR_PATHS[floor.kind]] = floor.processes.map((p) => p.name);
  for (const deployment of stack.deployments) out[deployment.path] = deployment.processes.map((p) => p.name);
  return out;
}

/** Where each path listens; `peer` leaves the peer gateway out where it is not measured. */
function endpointsOf(stack: Stack, { peer }: { peer: boolean }): Endpoints {
  return {
    upstream: stack.upstream.url,
    deployments: stack.deployments,
    peer: peer ? (stack.peer?.url ?? null) : null,
    floors: stack.floors,
    apiKey: stack.env.apiKey,
    model: stack.env.model.name,
    requestModel: stack.env.requestModel,
  };
}

/** The paths that use Redis, their processes, and the servers their commands land on (the floors stay on one server). */
function redisPaths(stack: Stack): (CountedPath & { processes: Managed[] })[] {
  return [
    ...stack.floors.map((f) => ({ path: FLOOR_PATHS[f.kind], processes: f.processes, nodes: [stack.env.redisUrl] })),
    ...stack.deployments.map((d) => ({ path: d.path, processes: d.processes, nodes: stack.redis.serviceNodes })),
  ];
}

/**
 * Redis round trips per completion, API and worker apart, of Switchyard and each floor: 300 completions
 * at 8 clients per path and mode, counted with MONITOR after the measured cells (it slows Redis down).
 */
async function roundTrips(stack: Stack, modes: Mode[]): Promise<{ path: Path; mode: Mode; trips: RoundTripsBySide }[]> {
  if (args['skip-round-trips']) return [];
  const endpoints = endpointsOf(stack, { peer: false });
  const out: { path: Path; mode: Mode; trips: RoundTripsBySide }[] = [];
  for (const mode of modes) {
    for (const owner of redisPaths(stack)) {
      const target = targetFor(owner.path, mode, endpoints);
      const load = async () =>
        (await runLoad(target, { concurrency: 8, durationMs: 60_000, maxRequests: 300, timeoutMs: 30_000, client: loadClient })).requests;
      out.push({ path: owner.path, mode, trips: await countRoundTrips(owner.nodes, () => processRoles(owner.processes), load) });
    }
  }
  return out;
}

/** Stops every Switchyard process: that drains the log batchers and, with --profile, writes the CPU profiles. */
async function stopDeployments(stack: Stack): Promise<void> {
  for (const deployment of stack.deployments) {
    for (const managed of deployment.processes) await managed.stop();
  }
}

function describeLayout(): string {
  if (args.layout === 'roles') return `separate API and ${args.workers ?? 1} worker process(es)`;
  if (args.layout === 'single') return 'one process, SWITCHYARD_ROLE=single';
  return `npm start: API_PROCESSES=${args['api-processes'] ?? 'default'}, WORKER_PROCESSES=${args.workers ?? 'default'}`;
}

async function main(): Promise<void> {
  const started = Date.now();
  const machine = machineInfo();
  say(`Switchyard benchmark on ${machine.cpu_model} × ${machine.cores}, Node ${machine.node}`);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-'));
  cleanups.push({ name: 'scratch folder', run: async () => rmSync(scratch, { recursive: true, force: true }) });
  const removeLater = (name: string, remove: () => void) => cleanups.push({ name, run: async () => remove() });
  const requested: Runner = args.runner === 'tsx' || args.runner === 'prebuilt' ? args.runner : 'build';
  const { runner, build, switchyard, baseline } = prepareSources({
    runner: requested,
    scratch,
    ref: args['switchyard-ref'],
    baselineRef: args.baseline,
    say,
    removeLater,
  });
  const stack = await startStack(runner, scratch, { switchyard, baseline });
  const [own] = stack.deployments;
  if (!own) throw new Error('no Switchyard started');
  say(
    `upstream: ${args.upstream} at ${stack.upstream.url}; Switchyard at ${own.apiUrl} (${runner}, LOG_LEVEL=${args['log-level']}, privacy level ${args['privacy-level']}, ${describeLayout()})${baseline ? `; baseline ${args.baseline}` : ''}; ready after ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (args.soak) return soak(stack, started);
  const processes = stack.deployments.flatMap((d) => d.processes);
  const floorPids = Object.fromEntries(stack.floors.flatMap((f) => f.processes).map((p) => [p.name, p.child.pid]));
  const pids = () => ({
    ...Object.fromEntries(processes.map((p) => [p.name, p.child.pid])),
    ...(stack.peer ? { portkey: stack.peer.child.pid } : {}),
    ...floorPids,
    upstream: stack.upstream.child.pid,
  });
  const meter = new CpuMeter(pids, stack.env.databaseName);
  const modes = (args.modes ?? 'json,stream').split(',') as Mode[];
  const paths: Path[] = [
    'direct',
    ...(stack.peer ? ['portkey' as const] : []),
    ...stack.floors.map((f) => FLOOR_PATHS[f.kind]),
    ...stack.deployments.map((d) => d.path),
  ];
  const cellSettings = {
    durationMs: Number(args.duration) * 1000,
    warmupMs: Number(args.warmup) * 1000,
    firstMs: Number(args['warmup-first']) * 1000,
    modes,
    levels: (args.concurrency ?? '1,64').split(',').map(Number),
    client: loadClient,
    fixedOrder: args['fixed-order'] === true,
    stretches: Number(args.stretches),
    say,
  };
  const {
    cells,
    sentThrough: measured,
    windows,
    profiled,
    allocations,
  } = await runCells({ ...stack, endpoints: endpointsOf(stack, { peer: true }), paths }, meter, cellSettings);
  const commandsOptions = {
    modes,
    endpoints: endpointsOf(stack, { peer: false }),
    completions: Number(args['commands-completions']),
    concurrency: Number(args['commands-concurrency']),
    client: loadClient,
  };
  const commands = await countCommandsPerPath(redisPaths(stack), commandsOptions);
  const trips = await roundTrips(stack, modes);
  const ownCompletions = [
    ...trips.map((t) => ({ path: t.path, completions: t.trips.completions })),
    ...commands.map((c) => ({ path: c.path, completions: c.commands.completions })),
  ];
  const sentThrough = measured + ownCompletions.filter((t) => t.path === 'switchyard' || t.path === 'baseline').reduce((sum, t) => sum + t.completions, 0);
  await stopDeployments(stack);
  const logs = await settledLogs(stack.env);
  if (args['keep-profiles'] && stack.profileDir) cpSync(stack.profileDir, args['keep-profiles'], { recursive: true });
  const profiles: ProfileSummary[] = stack.profileDir
    ? readdirSync(stack.profileDir)
        .filter((file) => file.endsWith('.cpuprofile'))
        .map((file) => ({
          ...summariseProfile(path.join(stack.profileDir ?? '', file), { root: switchyard.root, windows }),
          process: file.replace(/\.cpuprofile$/, ''),
        }))
        .filter((summary) => summary.busyMs > 100)
    : [];
  const profilesIn = (dir: string | null) =>
    dir
      ? readdirSync(dir)
          .filter((file) => file.endsWith('.cpuprofile'))
          .map((file) => path.join(dir, file))
      : [];
  // Each profile's frames are read from its own checkout (the baseline's is a worktree in the scratch folder).
  const budgetOf = (dir: string | null, cells: ProfiledCell[], root: string) => (profilesIn(dir).length > 0 ? stageBudgets(profilesIn(dir), cells, root) : []);
  const stages = budgetOf(stack.profileDir, profiled.switchyard, switchyard.root);
  const baselineStages = baseline ? budgetOf(stack.baselineProfileDir, profiled.baseline, baseline.root) : [];
  const comparisons = compare(cells);
  const withBaseline = compareWithBaseline(cells);
  const withPeer = compareWithBaseline(cells, 'portkey');
  const floorWithPeer = compareWithBaseline(cells, 'portkey', 'floor');
  const targets = { ...targetsOf(cells, comparisons, withPeer), ...commandTargets(commandGoals(commands)) };
  say(`\n${cellsTable(cells)}\n\n${comparisonTable(comparisons)}\n\nCPU per completion (ms of one core):\n${cpuTable(cells, machine.cores)}`);
  if (withBaseline.length > 0) say(`\nAgainst the baseline ${args.baseline} (${baseline?.commit.slice(0, 10)}), same run:\n${baselineTable(withBaseline)}`);
  say(`\nrequest logs written: ${logs.parents} (of ${sentThrough} completions through Switchyard), ${logs.children} upstream-call rows`);
  if (withPeer.length > 0)
    say(
      `\nSwitchyard against the Portkey gateway (same upstream, same load generator), same run:\n${baselineTable(withPeer, { other: 'Portkey', now: 'Switchyard' })}`,
    );
  if (floorWithPeer.length > 0)
    say(
      `\nThe queue floor (tools/bench/queue-floor: the least a gateway of Switchyard's shape does) against the Portkey gateway, same run:\n${baselineTable(floorWithPeer, { other: 'Portkey', now: 'floor' })}`,
    );
  const floors = floorReport(cells, processesOf(stack));
  say(floors.text);
  if (trips.length > 0)
    say(`\nRedis round trips per completion (commands each process sent, MONITOR, 300 completions at 8 clients per row):\n${roundTripsTable(trips)}`);
  if (commands.length > 0)
    say(
      `\nRedis commands per completion (INFO commandstats of ${stack.redis.kind === 'shared' ? 'the shared Redis: other clients count too' : `the run's own Redis${stack.redis.kind === 'cluster' ? ' Cluster' : ''}`}, Lua's commands included; ${commandsOptions.completions} completions at ${commandsOptions.concurrency} clients per row):\n${commandsTable(commands)}`,
    );
  const masters = mastersTable(commands);
  if (masters) say(`\nEach master's part of the counting window:\n${masters}`);
  say(`targets: ${targetsLine(targets)}`);
  if (stages.length > 0)
    say(
      `\nPer-stage CPU budget (µs per completion, every Switchyard process; the profile's shares of the CPU measured from /proc):\n${stageBudgetTable(stages)}`,
    );
  if (baselineStages.length > 0) say(`\nThe same for the baseline ${args.baseline}, same run:\n${stageBudgetTable(baselineStages)}`);
  if (profiles.length > 0) say(`\nCPU profiles (self time):\n${profileTables(profiles)}`);
  const promises = args.promises === true;
  const counted = promises ? " and promises created (an async hook's count, whose own allocations the bytes include)" : '';
  if (allocations.length > 0)
    say(
      `\nBytes allocated per completion (V8's sampling heap profiler, collected objects included)${counted}; the sampler's CPU skews this run's other figures:\n${allocationTable(allocations, { promises })}`,
    );
  const report = {
    machine,
    settings: {
      runner,
      upstream: args.upstream,
      log_level: args['log-level'],
      privacy_level: Number(args['privacy-level']),
      layout: args.layout,
      api_processes: args['api-processes'] ?? 'default',
      worker_processes: args.workers ?? (args.layout === 'roles' ? 1 : 'default'),
      duration_s: Number(args.duration),
      warmup_s: Number(args.warmup),
      warmup_first_s: Number(args['warmup-first']),
      load_client: loadClient,
      model: stack.env.model,
      prompt: PROMPT,
      node_env: 'production',
    },
    build,
    switchyard: { ref: args['switchyard-ref'] ?? 'working tree', commit: switchyard.commit },
    baseline: baseline ? { ref: args.baseline, commit: baseline.commit } : null,
    cells,
    comparisons,
    comparisons_with_baseline: withBaseline,
    floor_against_portkey: floorWithPeer,
    ...floors.json,
    redis: { kind: stack.redis.kind, switchyard_nodes: stack.redis.serviceNodes },
    redis_round_trips: trips,
    redis_commands: commands,
    targets,
    logs: { ...logs, completions_through_switchyard: sentThrough },
    profiles,
    stage_budgets: stages,
    baseline_stage_budgets: baselineStages,
    ...(allocations.length > 0 ? { allocations } : {}),
    total_seconds: Number(((Date.now() - started) / 1000).toFixed(1)),
  };
  const out = args.out ?? path.join(__dirname, 'results.json');
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  say(`\nwrote ${out} in ${report.total_seconds} s`);
}

/** `--soak`: Switchyard alone under 64 clients, half streaming, its processes' RSS sampled (soak.ts). */
async function soak(stack: Stack, started: number): Promise<void> {
  const [own] = stack.deployments;
  if (!own) throw new Error('no Switchyard started');
  // The soak is the minutes measured after the warm-up: 10 after 5 by default. V8's heap goes on growing
  // for the first few minutes under this load before it settles (RESULTS.md, issue 20's third session).
  const minutes = Number(args['soak-minutes']);
  const warmupMinutes = args['soak-warmup-minutes'] === undefined ? Math.min(5, minutes / 2) : Number(args['soak-warmup-minutes']);
  const endpoints = { ...endpointsOf(stack, { peer: false }), floors: [] };
  say(`soak: 64 clients (half streaming) for ${warmupMinutes} min of warm-up and ${minutes} min measured, RSS every 10 s, growth fitted after the warm-up`);
  const report = await runSoak(own.processes, {
    json: targetFor('switchyard', 'json', endpoints),
    stream: targetFor('switchyard', 'stream', endpoints),
    clients: 64,
    minutes,
    warmupMinutes,
    client: loadClient,
    say,
  });
  writeSoakReport(report, { out: args.out ?? path.join(__dirname, 'soak-results.json'), started, say });
}

main()
  .catch((err: unknown) => {
    say(`benchmark failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exitCode = 1;
  })
  .finally(() => cleanUp());
