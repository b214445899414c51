import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ROOT, waitFor200 } from '../processes';

/** The service compiled with the production tsconfig, into a folder of its own (ignored by git, as `build/` is). */
export function buildService(suffix: string): { entry: string; dir: string; ms: number; warnings: string[] } {
  const started = Date.now();
  const dir = path.join(ROOT, 'build', `reliability-${suffix}`);
  const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
  const result = spawnSync(tsc, ['-p', 'tsconfig.build.json', '--outDir', dir], { cwd: ROOT, encoding: 'utf8' });
  const entry = path.join(dir, 'src/main.js');
  if (!existsSync(entry)) throw new Error(`tsc produced no ${entry}:\n${result.stdout}${result.stderr}`);
  // tsc emits despite type errors (someone else's work in progress): say so, run anyway.
  const warnings =
    result.status === 0
      ? []
      : (result.stdout + result.stderr)
          .split('\n')
          .filter((l) => l.includes('error TS'))
          .slice(0, 5);
  return { entry, dir, ms: Date.now() - started, warnings };
}

export const removeBuild = (dir: string) => rmSync(dir, { recursive: true, force: true });

export type Role = 'api' | 'workers';

/** How long a process may take to be ready, in ms. */
const START_TIMEOUT_MS = 90_000;

/** One API or worker process of the service. */
export interface ServiceProcess {
  name: string;
  role: Role;
  /** The API's port (null for workers). */
  port: number | null;
  child: ChildProcess;
  logFile: string;
  /** Epoch ms when the process was spawned and when it was ready (API: `/readyz` 200; workers: "switchyard started" logged). */
  spawnedAt: number;
  readyAt: number;
}

const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

function exited(child: ChildProcess): Promise<void> {
  if (!alive(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** The last lines a process wrote, to explain a failure. */
export function tailOf(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

async function loggedStart(proc: { child: ChildProcess; logFile: string }, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive(proc.child)) throw new Error(`worker exited before it started:\n${tailOf(proc.logFile)}`);
    if (existsSync(proc.logFile) && readFileSync(proc.logFile, 'utf8').includes('switchyard started')) return;
    if (Date.now() > deadline) throw new Error(`worker not started within ${timeoutMs} ms:\n${tailOf(proc.logFile)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Starts, kills and restarts the service's processes; every one still running is stopped by `stopAll`
 * (SIGTERM, then SIGKILL after a grace period).
 */
export class ServiceProcesses {
  private readonly running = new Set<ServiceProcess>();
  private closed = false;

  constructor(private readonly spec: { command: string[]; env: Record<string, string>; logDir: string }) {}

  async start(name: string, role: Role, port: number | null = null): Promise<ServiceProcess> {
    // After stopAll (Ctrl-C, or the end of the run), a row still running must not leave a new process behind.
    if (this.closed) throw new Error(`not starting ${name}: the service is being stopped`);
    const logFile = path.join(this.spec.logDir, `${name}.log`);
    const out = openSync(logFile, 'a');
    const env = { ...process.env, ...this.spec.env, SWITCHYARD_ROLE: role, ...(port === null ? {} : { PORT: String(port), HOST: '127.0.0.1' }) };
    const [command = process.execPath, ...args] = this.spec.command;
    const spawnedAt = Date.now();
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', out, out] });
    closeSync(out);
    const proc: ServiceProcess = { name, role, port, child, logFile, spawnedAt, readyAt: 0 };
    this.running.add(proc);
    child.once('exit', () => this.running.delete(proc));
    // Generous: on a busy 2-core machine four processes starting at once (tsx even more) take long.
    if (port === null) await loggedStart(proc, START_TIMEOUT_MS);
    else
      await waitFor200(`http://127.0.0.1:${port}/readyz`, START_TIMEOUT_MS, () => alive(child)).catch((err: unknown) => {
        throw new Error(`${String(err)}:\n${tailOf(logFile)}`);
      });
    proc.readyAt = Date.now();
    return proc;
  }

  /** SIGKILL: no shutdown hook runs, as when a machine or container dies. Resolves once the process is gone. */
  async kill9(proc: ServiceProcess): Promise<number> {
    const at = Date.now();
    proc.child.kill('SIGKILL');
    await exited(proc.child);
    return at;
  }

  async stopAll(graceMs = 10_000): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.running].map(async ({ child }) => {
        if (!alive(child)) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited(child);
        clearTimeout(timer);
      }),
    );
  }
}
