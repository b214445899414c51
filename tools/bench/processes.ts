import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

export const ROOT = path.resolve(__dirname, '../..');
/**
 * Where the benchmark compiles the service: inside this checkout (ignored by git), not under
 * node_modules, which worktrees may share through a symlink (two benchmarks would run each other's build).
 */
export const BUILD_DIR = path.join(ROOT, 'bench-build');
const TSX_LOADER = ['--import', 'tsx'];

/**
 * How the service is run: compiled JavaScript as in production (`build` compiles first; `prebuilt` runs
 * what BUILD_DIR holds, e.g. with a change tried by hand), or TypeScript through tsx.
 */
export type Runner = 'build' | 'prebuilt' | 'tsx';

/** A checkout of the service and where its compiled JavaScript goes. */
export interface ServiceSource {
  root: string;
  buildDir: string;
}

export const WORKING_TREE: ServiceSource = { root: ROOT, buildDir: BUILD_DIR };

/** Compiles the service with the production tsconfig into its build folder (not dist/, which others use). */
export function buildService({ root, buildDir }: ServiceSource = WORKING_TREE): { ms: number; warnings: string[] } {
  const started = Date.now();
  const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
  const result = spawnSync(tsc, ['-p', 'tsconfig.build.json', '--outDir', buildDir], { cwd: root, encoding: 'utf8' });
  const main = path.join(buildDir, 'src/main.js');
  if (!existsSync(main)) throw new Error(`tsc produced no ${main}:\n${result.stdout}${result.stderr}`);
  // tsc emits despite type errors (someone else's work in progress): say so, run anyway.
  const warnings =
    result.status === 0
      ? []
      : (result.stdout + result.stderr)
          .split('\n')
          .filter((l) => l.includes('error TS'))
          .slice(0, 5);
  return { ms: Date.now() - started, warnings };
}

export { freePort } from '../../test/helpers/free-port';

export interface Managed {
  name: string;
  child: ChildProcess;
  logFile: string;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGTERM (the service drains), then SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited(child);
  clearTimeout(timer);
}

export interface ServiceProcess {
  name: string;
  runner: Runner;
  /** Which checkout runs (the working tree unless a baseline is compared). */
  source?: ServiceSource;
  env: Record<string, string>;
  logFile: string;
  /** Writes a V8 CPU profile into this folder when the process exits. */
  cpuProfileDir?: string;
  /** The profile is `<name>.cpuprofile` (true, the default), or V8's name with the pid (false: a supervisor whose children inherit the flags). */
  cpuProfileNamed?: boolean;
  /** More node arguments (a supervisor's children inherit them), such as the allocation sampler's. */
  nodeArgs?: string[];
}

/** Starts `src/main.ts` (or its build) as a separate process; its stdout and stderr go to `logFile`. */
export function startService(spec: ServiceProcess): Managed {
  const { root, buildDir } = spec.source ?? WORKING_TREE;
  const entry = spec.runner === 'tsx' ? [...TSX_LOADER, path.join(root, 'src/main.ts')] : [path.join(buildDir, 'src/main.js')];
  const name = spec.cpuProfileNamed === false ? [] : ['--cpu-prof-name', `${spec.name}.cpuprofile`];
  const profile = spec.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', spec.cpuProfileDir, ...name] : [];
  const out = openSync(spec.logFile, 'w');
  const child = spawn(process.execPath, [...profile, ...(spec.nodeArgs ?? []), ...entry], {
    cwd: root,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  return { name: spec.name, child, logFile: spec.logFile, stop: () => stopChild(child, 15_000) };
}

/** The last lines a process wrote, to explain a failure. */
export function tailOf(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Starts a TypeScript entry of tools/bench/ in its own process (through tsx) and waits for the one JSON line
 * it prints once listening (its URLs).
 */
export async function startBenchEntry<T>(entry: string, argv: string[], nodeArgs: string[] = []): Promise<Managed & { ready: T }> {
  const child = spawn(process.execPath, [...nodeArgs, ...TSX_LOADER, path.join(__dirname, entry), ...argv], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ready = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start within 20 s`)), 20_000);
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code}`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line) as T);
    });
  });
  return { name: entry, child, logFile: '', ready, stop: () => stopChild(child, 5000) };
}

/** Starts the upstream (simulator or minimal server) in its own process and waits for its URL. */
export async function startUpstream(kind: 'simulator' | 'minimal', { latencyMs = 0 }: { latencyMs?: number } = {}): Promise<Managed & { url: string }> {
  const started = await startBenchEntry<{ url: string }>('upstream.ts', [kind, String(latencyMs)]);
  return { ...started, name: `upstream (${kind})`, url: started.ready.url };
}

/** Polls `GET <url>` until it answers 200, or fails after `timeoutMs`. */
export async function waitFor200(url: string, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error(`process exited before ${url} answered`);
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} not ready within ${timeoutMs} ms (last status ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Another commit of the service, checked out beside the working tree (a detached git worktree sharing
 * its node_modules), with its own Prisma client, compiled: a "before" to measure in the same run as the
 * "after". `remove` takes the checkout away again.
 */
export function checkOutBaseline(ref: string, scratch: string, folder = 'baseline'): ServiceSource & { commit: string; remove(): void } {
  const root = path.join(scratch, folder);
  const git = (args: string[], cwd = ROOT) => {
    const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout.trim();
  };
  const commit = git(['rev-parse', '--verify', `${ref}^{commit}`]);
  git(['worktree', 'add', '--detach', root, commit]);
  const remove = () => void spawnSync('git', ['worktree', 'remove', '--force', root], { cwd: ROOT });
  try {
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
    const generate = spawnSync(process.execPath, ['scripts/prisma-generate.js'], { cwd: root, encoding: 'utf8' });
    if (generate.status !== 0) throw new Error(`prisma generate failed in the baseline: ${generate.stdout}${generate.stderr}`);
  } catch (err) {
    remove();
    throw err;
  }
  // Inside the checkout, so the compiled code finds its node_modules.
  return { root, buildDir: path.join(root, 'bench-build'), commit, remove };
}
