import path from 'node:path';
import { processTreeCpuMs } from './cpu';
import type { BenchEnvironment } from './environment';
import { freePort, startService, tailOf, waitFor200, type Managed, type Runner, type ServiceSource } from './processes';

/**
 * How Switchyard's processes are started: `start` as `npm start` runs them (one supervisor,
 * SWITCHYARD_ROLE=all, with its API and worker children, sized by `apiProcesses`/`workerProcesses` or
 * the cores), `roles` as separate `SWITCHYARD_ROLE=api` and `=workers` processes started by the bench,
 * `single` as one `SWITCHYARD_ROLE=single` process (API and workers on one event loop).
 */
export type Layout = 'start' | 'roles' | 'single';

/** `--layout` (and `--baseline-layout`): `start` unless `roles` or `single` is named. */
export function layoutOf(option: string | undefined): Layout {
  return option === 'roles' || option === 'single' ? option : 'start';
}

/** One Switchyard on its own Redis prefix: the processes the benchmark started (a supervisor, or an API and its workers). */
export interface Deployment {
  path: 'switchyard' | 'baseline';
  processes: Managed[];
  apiUrl: string;
}

export interface DeploymentSpec {
  path: Deployment['path'];
  runner: Runner;
  source: ServiceSource;
  layout: Layout;
  /** API processes (`start` only); undefined leaves the service's default (one per core). */
  apiProcesses?: number;
  /** Worker processes; undefined leaves the service's default under `start`, 1 under `roles`. */
  workerProcesses?: number;
  shared: Record<string, string>;
  scratch: string;
  profileDir: string | null;
  /** More node arguments for every process of the deployment (the allocation sampler's, with --allocations). */
  nodeArgs?: string[];
  /** Called with each started process, so the run can stop it whatever happens. */
  started: (process: Managed) => void;
}

const PROMPT = 'Say hello to the benchmark.';

/** One request through Switchyard until it answers 200 with one of the Space's models: a worker is up and routing works. */
async function firstCompletion(
  url: string,
  { apiKey, model, activeModels, alive }: { apiKey: string; model: string | undefined; activeModels: string[]; alive: () => boolean },
): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = '';
  while (Date.now() < deadline && alive()) {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...(model ? { model } : {}), messages: [{ role: 'user', content: PROMPT }] }),
      signal: AbortSignal.timeout(10_000),
    }).catch((err: unknown) => ({ status: 0, text: async () => String(err) }));
    last = `${res.status} ${await res.text()}`;
    if (res.status === 200 && activeModels.some((name) => last.includes(`"model":"${name}"`))) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no completion through Switchyard: ${last.slice(0, 400)}`);
}

function startProcesses(spec: DeploymentSpec, env: BenchEnvironment, port: number): Managed[] {
  const label = (name: string) => (spec.path === 'switchyard' ? name : `${spec.path}-${name}`);
  const processEnv = { ...spec.shared, REDIS_PREFIX: spec.path === 'switchyard' ? env.redisPrefix : `${env.redisPrefix}_${spec.path}` };
  const listen = { PORT: String(port), HOST: '127.0.0.1' };
  const run = (name: string, roleEnv: Record<string, string>, profileName: boolean) => {
    const managed = startService({
      name: label(name),
      runner: spec.runner,
      source: spec.source,
      logFile: path.join(spec.scratch, `${label(name)}.log`),
      cpuProfileDir: spec.profileDir ?? undefined,
      cpuProfileNamed: profileName,
      nodeArgs: spec.nodeArgs ?? [],
      env: { ...processEnv, ...roleEnv },
    });
    spec.started(managed);
    return managed;
  };
  if (spec.layout === 'start') {
    const sizes = {
      ...(spec.apiProcesses ? { API_PROCESSES: String(spec.apiProcesses) } : {}),
      ...(spec.workerProcesses ? { WORKER_PROCESSES: String(spec.workerProcesses) } : {}),
    };
    // Its children inherit the profiling flags: each profile is then named after its pid.
    return [run('switchyard', { SWITCHYARD_ROLE: 'all', ...sizes, ...listen }, false)];
  }
  if (spec.layout === 'single') return [run('switchyard', { SWITCHYARD_ROLE: 'single', ...listen }, true)];
  const workers = Array.from({ length: Math.max(1, spec.workerProcesses ?? 1) }, (_, i) =>
    run(i === 0 ? 'worker' : `worker${i + 1}`, { SWITCHYARD_ROLE: 'workers' }, true),
  );
  return [run('api', { SWITCHYARD_ROLE: 'api', ...listen }, true), ...workers];
}

/**
 * Waits until the processes are idle (under a tenth of a core over a second, at most 60 s): children of a
 * supervisor still loading their modules would otherwise take CPU from the first cells.
 */
async function settled(processes: Managed[]): Promise<void> {
  const treeMs = () => processes.reduce((sum, p) => sum + (p.child.pid ? processTreeCpuMs(p.child.pid) : 0), 0);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const before = treeMs();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (treeMs() - before < 100) return;
  }
}

export async function startDeployment(spec: DeploymentSpec, env: BenchEnvironment): Promise<Deployment> {
  const port = await freePort();
  const processes = startProcesses(spec, env, port);
  const apiUrl = `http://127.0.0.1:${port}`;
  const alive = () => processes.every((p) => p.child.exitCode === null);
  try {
    // A loaded machine (a test suite beside the benchmark) can take a minute to start the supervisor and its children.
    await waitFor200(`${apiUrl}/readyz`, 90_000, alive);
    await firstCompletion(apiUrl, { apiKey: env.apiKey, model: env.requestModel, activeModels: env.activeModels, alive });
    await settled(processes);
  } catch (err) {
    for (const p of processes) process.stdout.write(`--- ${p.name}.log ---\n${tailOf(p.logFile)}\n`);
    throw err;
  }
  return { path: spec.path, processes, apiUrl };
}
