import { freePort } from '../processes';
import type { ReliabilityEnvironment } from './environment';
import { type ServiceProcesses, type ServiceProcess } from './service';
import type { Upstream } from './upstream';

/** The host of the custom models the ownership row saves (allowlisted, so saving resolves nothing). */
export const RACE_MODEL_HOST = 'race-vllm.internal:9';

/** How many of each process the suite runs: two of each, so one can be killed while the other serves. */
export const API_PROCESSES = 2;
export const WORKER_PROCESSES = 2;

/** The running service: API and worker processes (separate), against the simulator, the throwaway database and Redis prefix. */
export class Stack {
  readonly apis: ServiceProcess[] = [];
  readonly workers: ServiceProcess[] = [];
  private generation = 0;

  constructor(private readonly processes: ServiceProcesses) {}

  static environmentFor(env: ReliabilityEnvironment, upstream: Upstream): Record<string, string> {
    return {
      NODE_ENV: 'production',
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.redisPrefix,
      OPENAI_API_KEY: 'reliability',
      OPENAI_BASE_URL: upstream.openAiBaseUrl,
      // info: the "switchyard started" line tells when a worker is ready.
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: '5000',
      // The ownership row's custom models name this host; they are saved and deleted, never called.
      SSRF_ALLOWED_HOSTS: RACE_MODEL_HOST,
    };
  }

  async start(): Promise<void> {
    const ports = await Promise.all(Array.from({ length: API_PROCESSES }, () => freePort()));
    const apis = Promise.allSettled(ports.map((port, i) => this.processes.start(`api${i + 1}`, 'api', port)));
    const workers = Promise.allSettled(Array.from({ length: WORKER_PROCESSES }, (_, i) => this.processes.start(`worker${i + 1}`, 'workers')));
    // Every start is awaited before any failure is reported, so none is left unhandled.
    const started = [...(await apis), ...(await workers)];
    const failure = started.find((s) => s.status === 'rejected');
    if (failure) throw failure.reason;
    for (const s of started) {
      if (s.status === 'fulfilled') (s.value.role === 'api' ? this.apis : this.workers).push(s.value);
    }
  }

  apiUrl(proc: ServiceProcess): string {
    return `http://127.0.0.1:${proc.port ?? 0}`;
  }

  /** URLs of the API processes that are running. */
  liveApiUrls(): string[] {
    return this.apis.filter((p) => p.child.exitCode === null && p.child.signalCode === null).map((p) => this.apiUrl(p));
  }

  /** SIGKILL a process; resolves with the epoch ms of the kill once it is gone. */
  kill9(proc: ServiceProcess): Promise<number> {
    return this.processes.kill9(proc);
  }

  /** Starts a replacement for a process (same role, same port for an API) and puts it in its place. */
  async replace(proc: ServiceProcess): Promise<ServiceProcess> {
    this.generation += 1;
    const list = proc.role === 'api' ? this.apis : this.workers;
    const fresh = await this.processes.start(`${proc.name}-r${this.generation}`, proc.role, proc.port);
    list[list.indexOf(proc)] = fresh;
    return fresh;
  }

  stop(): Promise<void> {
    return this.processes.stopAll();
  }
}
